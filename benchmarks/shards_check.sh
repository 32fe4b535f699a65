#!/bin/bash
# Issue 20's done-when, through the CLI, on hotpotqa passages: two shards compiled from the halves of
# 300 passages export signed bundles that verify; one altered byte in a Parquet file does not;
# merging the two bundles in either order gives the same central wiki, and the same entity ids and
# live claim ids as one compile of all 300; `kg compile --engine ray` on 100 gives the same wiki
# as `kg compile` (log pages aside: they carry the compile's time). From the repository root:
#   KG_DATA_DIR=../shared/data benchmarks/shards_check.sh [WORKDIR]
set -e
K=$(realpath "${KG:-.venv/bin/kg}")
export CORPUS=$(realpath "${KG_DATA_DIR:-../shared/data}")/hotpotqa-100/corpus.jsonl
W=${1:-/tmp/kg-shards-check}; rm -rf "$W"; mkdir -p "$W"; cd "$W"
python3 - <<'PY'
import json
docs=[json.loads(l) for l in open(__import__('os').environ['CORPUS'])][:300]
import os
for name, part in (('A', docs[:150]), ('B', docs[150:]), ('ALL', docs), ('R1', docs[:100]), ('R2', docs[:100])):
    os.makedirs(f'{name}/raw', exist_ok=True)
for i,d in enumerate(docs):
    text=f"# {d['title']}\n\n{d['text']}\n"
    for name in (['A'] if i<150 else ['B'])+['ALL']+(['R1','R2'] if i<100 else []):
        open(f"{name}/raw/{d['id']}.md",'w').write(text)
PY
for kb in A B ALL R1 R2; do $K init $kb >/dev/null; done
for kb in A B ALL R1; do $K compile --kb $kb -q >/dev/null; done
$K compile --kb R2 --engine ray -q >/dev/null
echo "ray vs plain (100): $(diff -r -x log.md -x 'log' R1/wiki R2/wiki >/dev/null && echo same wiki || echo DIFFERENT)"
$K bundle keygen --out keys >/dev/null
$K bundle export bA --kb A --key keys/kg-bundle.key --shard-id shard-a >/dev/null
$K bundle export bB --kb B --key keys/kg-bundle.key --shard-id shard-b >/dev/null
$K bundle verify bA --key keys/kg-bundle.pub >/dev/null && echo "bA verifies"
$K bundle verify bB --key keys/kg-bundle.pub >/dev/null && echo "bB verifies"
cp -r bA bX; python3 -c "
p='bX/claims.parquet'; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=1; open(p,'wb').write(bytes(b))"
if $K bundle verify bX --key keys/kg-bundle.pub > verify_bX.txt 2>&1; then echo "ALTERED BYTE VERIFIED (bad)"; else echo "altered byte refused (exit $?): $(head -1 verify_bX.txt)"; fi
$K init C1 >/dev/null; $K init C2 >/dev/null
$K merge bA bB --kb C1 >/dev/null; $K merge bB bA --kb C2 >/dev/null
echo "merge orders: $(diff -r -x log.md -x log C1/wiki C2/wiki >/dev/null && echo same wiki || echo DIFFERENT)"
for kb in C1 ALL; do
  $K cypher --kb $kb --json "MATCH (e:Entity) WHERE e.status='live' RETURN e.id AS id ORDER BY id" > $kb.entities.json
  $K cypher --kb $kb --json "MATCH (c:Claim) WHERE c.status='live' RETURN c.id AS id ORDER BY id" > $kb.claims.json
done
echo "entity ids vs one compile of 300: $(cmp -s C1.entities.json ALL.entities.json && echo same || echo DIFFERENT)"
echo "live claim ids vs one compile of 300: $(cmp -s C1.claims.json ALL.claims.json && echo same || echo DIFFERENT)"
python3 -c "import json; print('counts', len(json.load(open('C1.entities.json'))), len(json.load(open('C1.claims.json'))))"
