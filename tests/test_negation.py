"""Negation of a claim: the sentence denies its own main predicate (kg/extract/negation.py).

The rows are sentences of the kinds people compile, written for this test (none is taken from a
data set): notes, clipped articles about software, papers' abstracts, encyclopedic prose. Each is
labelled by reading it: True when the sentence denies what it states, False otherwise (nothing
negated, an imperative, someone else's saying, a new state, a negation in a subordinate clause, a
quote or an aside, a contrast or a bound).
"""

from __future__ import annotations

import pytest

from kg.extract.negation import denies
from tests.test_heuristic import extract

ROWS: list[tuple[str, bool, str]] = [
    # notes: what a person writes down for themself
    ("Periodically: Clean early, don't let the library grow rotten.", False, "imperative after a label"),
    ("Never commit secrets to the repository.", False, "imperative"),
    ("Do not run the migration on Fridays.", False, "imperative"),
    ("Please don't push to main without a review.", False, "imperative"),
    ("Remember to back up the vault, and don't trust the sync blindly.", False, "imperative, coordinated"),
    ("The staging server does not have enough memory for the full index.", True, "main clause"),
    ("My laptop can't run the 70B model locally.", True, "main clause, cannot"),
    ("The old backup script is no longer needed.", False, "no longer: the new state"),
    ("Meeting notes from Tuesday are not in the shared folder.", True, "main clause"),
    ("None of the three plugins supports nested tags.", True, "none as subject"),
    ("Nobody on the team has used Rust in production.", True, "nobody as subject"),
    ("If the cache is not warm, the first query takes two seconds.", False, "fronted conditional"),
    ("The sync works on the desktop, not on the phone.", False, "contrast"),
    ("Obsidian stores notes as plain Markdown files.", False, "nothing negated"),
    ("Tags without a hash are ignored by the parser.", False, "without is no denial of the predicate"),
    ("There is no way to export the graph view as SVG.", True, "there is no"),
    ("The plugin hasn't been updated since 2021.", True, "main clause, n't"),
    ("Since the update, the search no longer finds attachments.", False, "no longer"),
    # clipped articles about software and AI
    ("Karpathy agreed and suggested that most teams don't need a vector database.", False, "reported speech"),
    ("He said the model doesn't generalise beyond its training data.", False, "reported speech"),
    ('"It won\'t scale past a million users," the engineer wrote.', False, "quote"),
    ("According to the maintainers, the API is not stable yet.", False, "attributed to others"),
    ("The model does not see images, only text.", True, "main clause"),
    ("GPT-2 was not released in full at first.", True, "main clause"),
    ("This is not an exotic requirement.", True, "main clause"),
    ("The framework, which was not designed for streaming, now handles it well.", False, "relative clause aside"),
    ("The framework, which was designed for batch jobs, does not handle streaming.", True, "aside closed"),
    ("Developers who try the new editor don't go back.", True, "relative clause inside the subject"),
    ("It is a library that does not depend on any native code.", False, "relative clause"),
    ("Not only is the new runtime faster, but it also uses less memory.", False, "not only ... but"),
    ("The bottleneck is memory bandwidth, not compute.", False, "contrast"),
    ("Latency should be no more than 50 milliseconds.", False, "a bound"),
    ("It was not until 2017 that transformers replaced recurrent networks.", False, "not until ... that"),
    ("The company no longer sells perpetual licences.", False, "no longer"),
    ("Neither the CLI nor the web app supports offline mode.", True, "neither ... nor"),
    ("The benchmark cannot tell memorisation from reasoning.", True, "cannot"),
    ("Whether or not the feature ships, the API will change.", False, "whether or not"),
    ("The release notes mention that the old flag is not supported anymore.", False, "reported by others"),
    ("Altman argued that scaling alone is not enough.", False, "someone else's argument"),
    ("Users reported that the app doesn't start after the update.", False, "reported by others"),
    ("Claude Code runs in the terminal and edits files directly.", False, "nothing negated"),
    ("Because the tokenizer is not deterministic, results vary between runs.", False, "fronted reason"),
    ("Results vary between runs because the tokenizer is not deterministic.", False, "reason clause"),
    ("Nothing in the license forbids commercial use.", True, "nothing as subject"),
    ("The API has never returned more than 100 items per page.", True, "never in the main clause"),
    ("Don't let the context window fill up with logs.", False, "imperative"),
    # papers' abstracts
    ("Vitamin D supplementation did not reduce the risk of fractures.", True, "a negative finding"),
    ("No association was found between coffee intake and mortality.", True, "no as determiner"),
    ("We found that the mutation does not affect binding affinity.", True, "the authors' own finding"),
    ("Our results indicate that IL-6 is not required for the response.", True, "own finding"),
    ("These data suggest that the effect is not mediated by insulin.", True, "own finding"),
    ("The effect was not significant after adjustment for age.", True, "main clause"),
    ("Mice lacking the receptor showed no change in body weight.", True, "no change"),
    ("Patients who did not respond to treatment were excluded.", False, "relative clause inside the subject"),
    ("Cells that do not express CD4 were sorted by flow cytometry.", False, "relative clause"),
    ("Treatment reduced mortality (the difference in relapse was not significant).", False, "bracketed aside"),
    ("Expression was higher in tumours than in normal tissue (data not shown).", False, "aside"),
    ("Smith et al. claimed that the protein is not phosphorylated in vivo.", False, "others' claim"),
    ("The drug increased survival in patients with stage III but not stage IV disease.", False, "contrast"),
    ("Neither dose altered blood pressure.", True, "neither as determiner"),
    ("The intervention had no effect on HbA1c levels.", True, "no effect"),
    ("Serum levels rose in all treated patients.", False, "nothing negated"),
    ("Treatment was stopped when patients could not tolerate the dose.", False, "subordinate when clause"),
    ("Participants were not aware of their group assignment.", True, "main clause"),
    ("Not surprisingly, older patients had more complications.", False, "sentence adverb"),
    # encyclopedic prose
    ("ENIAC was not a stored-program machine.", True, "main clause"),
    ("The bridge was never completed.", True, "never"),
    ("The village has no railway station.", True, "has no"),
    ("The album, which did not chart in the United States, sold well in Japan.", False, "relative aside"),
    ("He was no longer a member of the party after 1934.", False, "no longer"),
    ("The species is not found outside Madagascar.", True, "main clause"),
    ("She won the election, although she did not campaign in the north.", False, "concessive clause"),
    ("The town was founded in 1820 and grew quickly.", False, "nothing negated"),
    ("The Symphony No. 5 in C minor was first performed in 1808.", False, "No. of a number"),
    ("It was not long before the team rewrote the parser.", False, "not long before"),
    ("(The author is not related to the founder.)", True, "a sentence that is an aside"),
    ("Note that the flag does not change the output format.", True, "note that: the source's own statement"),
    ("He added a retry so that the job would not fail.", False, "a purpose clause"),
    # a clause of a noun without "that": its negation is not the sentence's
    ("Milvus needed a Kubernetes operator we did not want to own.", False, "noun clause after the object"),
    ("This is a problem we cannot solve with caching.", False, "noun clause, cannot"),
    ("The team picked Qdrant, a database they had not used before.", False, "noun clause in an apposition"),
    ("We found we could not reproduce the speedup.", True, "a finding without that"),
    ("The results we got do not support the claim.", True, "a noun clause inside the subject, then the denial"),
    ("Users we interviewed did not like the new editor.", True, "a noun clause inside the subject"),
    ("On Tuesday we did not ship the release.", True, "fronted time, no verb before the pronoun"),
    ("We warned users we would not support Python 2.", True, "a person, then what they were told"),
    ("After we released the update we did not see regressions.", True, "a fronted clause without a comma"),
]


def test_rows_are_varied_and_mixed() -> None:
    assert len(ROWS) >= 60 and len({s for s, _, _ in ROWS}) == len(ROWS)
    assert 0.3 < sum(label for _, label, _ in ROWS) / len(ROWS) < 0.7


def scores(rows: list[tuple[str, bool, str]]) -> tuple[float, float, list[str]]:
    said = [(denies(s), label, s) for s, label, _ in rows]
    tp = sum(1 for got, label, _ in said if got and label)
    precision = tp / max(1, sum(1 for got, _, _ in said if got))
    recall = tp / max(1, sum(1 for _, label, _ in said if label))
    return precision, recall, [s for got, label, s in said if got != label]


def test_negation_precision_and_recall_on_the_labelled_rows() -> None:
    precision, recall, wrong = scores(ROWS)
    assert precision >= 0.95 and recall >= 0.95, (precision, recall, wrong)


@pytest.mark.parametrize(("sentence", "label", "why"), ROWS, ids=[why for _, _, why in ROWS])
def test_each_row(sentence: str, label: bool, why: str) -> None:
    assert denies(sentence) is label, why


def test_the_extractor_marks_only_denials_negated() -> None:
    text = ("# Notes\n\nThe old backup script is no longer needed. Never commit secrets to the repository. "
            "The staging server does not have enough memory for the index.\n")
    polarity = {c.quotes[0]: c.polarity for c in extract(text).claims}
    assert polarity.get("The staging server does not have enough memory for the index.") == -1
    assert all(p == 1 for q, p in polarity.items() if not q.startswith("The staging"))
