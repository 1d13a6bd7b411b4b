"""Every knob Lectern has: its default, its range, and the ``LECTERN_*`` variable that sets it.

Sources, highest priority first: keyword arguments, environment variables, a ``.env`` file, a TOML config
file (``LECTERN_CONFIG`` or ``./lectern.toml``), then the defaults below. Invalid values fail at start
with a message that names the variable.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from lectern.errors import ConfigError

ENV_PREFIX = "LECTERN_"
SearchMode = Literal["hybrid", "dense", "keyword"]


# LECTERN_* variables that are read outside Settings (by the CLI, the server workers or the tests).
OTHER_VARIABLES = frozenset({"CONFIG", "LOG_LEVEL", "UPDATE_SCREENSHOTS"})
OTHER_PREFIXES = ("TEST_",)


def _config_file() -> Path:
    return Path(os.environ.get(f"{ENV_PREFIX}CONFIG", "lectern.toml"))


class PublishableKey(BaseModel):
    """A key that may sit in a web page: it can only ask and give feedback, and only from ``origins``
    (scheme://host[:port], as browsers send them in ``Origin``)."""

    key: SecretStr
    origins: list[str] = Field(min_length=1)

    @field_validator("origins")
    @classmethod
    def _origins(cls, origins: list[str]) -> list[str]:
        cleaned = [o.strip().rstrip("/") for o in origins]
        for origin in cleaned:
            if not re.fullmatch(r"https?://[^/\s]+", origin):
                raise ValueError(f"{origin!r} is not an origin such as https://docs.example.com")
        return cleaned


def _split_list(value: Any) -> Any:
    """A list setting from the environment: a JSON list, or items separated by commas."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON list ({exc.msg}); use a JSON list or a,b,c") from None
    return [item.strip() for item in text.split(",") if item.strip()]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_file=".env",
        extra="ignore",
        validate_default=True,
    )

    # --- storage ---------------------------------------------------------------------------------
    data_dir: Path = Field(Path(".lectern"), description="Holds the index and the SQLite files.")
    collection: str = Field("docs", pattern=r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$")

    # --- ingestion -------------------------------------------------------------------------------
    site_base_url: str = Field(
        "", description="Base URL of the published site, e.g. https://example.com/docs"
    )
    chunk_max_tokens: int = Field(
        0, ge=0, le=8192, description="Token budget per chunk; 0 means the embedder's own window."
    )
    chunk_overlap_tokens: int = Field(32, ge=0, le=512)
    ingest_flush_chunks: int = Field(
        512, ge=1, le=100_000, description="Chunks written per index transaction during ingest."
    )

    # --- embeddings ------------------------------------------------------------------------------
    embedder: Literal["local", "openai", "cohere", "openai-compatible"] = "local"
    embedding_model: str = Field("", description="Model name; empty picks the provider's default.")
    embedding_base_url: str = ""
    embedding_api_key: SecretStr = SecretStr("")
    embedding_backend: Literal["auto", "onnx", "numpy"] = "auto"
    embedding_batch_size: int = Field(32, ge=1, le=2048)
    embedding_threads: int = Field(0, ge=0, le=256, description="0 uses every core.")
    embedding_query_precision: Literal["int8", "fp32"] = Field(
        "int8",
        description="Local model: queries through an int8 copy of the model (half the CPU), or fp32.",
    )
    embedding_document_precision: Literal["int8", "fp32", "int8-partial"] = Field(
        "fp32",
        description="Local model: chunks and their sentences through an int8 copy of the model with "
        "every product in int8 (SmoothQuant and per-token scales; about a third less CPU per cold "
        "ingest; questions keep their own int8 copy), or fp32; int8-partial: chunks through a copy "
        "with only the attention-output and feed-forward up products in int8 (about 24% less CPU per chunk).",
    )
    embedding_sentence_precision: Literal["int8", "fp32"] = Field(
        "int8",
        description="Local model: the chunks' sentences (which the extractive writer ranks) through the "
        "int8 copy of the model (about 40% less CPU for them), or fp32. Chunks follow the document "
        "precision.",
    )
    model_cache: Path | None = Field(
        None,
        description="Where the local model's ONNX graphs and the word-frequency table are kept; empty "
        "uses data_dir/models.",
    )
    provider_timeout_s: float = Field(30.0, gt=0, le=600)
    provider_max_attempts: int = Field(3, ge=1, le=10)
    query_cache_size: int = Field(
        1024,
        ge=0,
        le=1_000_000,
        description="Query embeddings kept in memory, by exact text; 0 turns it off.",
    )

    # --- index -----------------------------------------------------------------------------------
    index_engine: Literal["lancedb", "qdrant", "pgvector"] = "lancedb"
    qdrant_url: str = Field(
        "",
        description="Qdrant server URL; empty uses local mode under data_dir, ':memory:' an in-memory one.",
    )
    qdrant_api_key: SecretStr = SecretStr("")
    # A Qdrant cluster: how a new collection is spread and how writes are acknowledged.
    qdrant_shards: int = Field(1, ge=1, le=1024, description="Shards of a new collection (cluster).")
    qdrant_replication_factor: int = Field(1, ge=1, le=64, description="Copies of each shard (cluster).")
    qdrant_write_consistency: int = Field(
        1, ge=1, le=64, description="Replicas that must acknowledge a write (cluster)."
    )
    pgvector_url: str = Field(
        "",
        description="PostgreSQL (with pgvector) holding the index, as a libpq URL; empty reuses "
        "LECTERN_DATABASE_URL when that is PostgreSQL.",
    )
    pgvector_schema: str = Field(
        "public", pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,62}$", description="Schema of the index tables."
    )
    pgvector_pool_size: int = Field(8, ge=1, le=256, description="Connections per process to the index.")
    pgvector_ef_search: int = Field(100, ge=1, le=1000, description="HNSW candidate list at query time.")
    ann_min_rows: int = Field(50_000, ge=256, description="Build an ANN index once a collection is this big.")
    # Keyword (BM25) analysis, shared by LanceDB's FTS index and the Qdrant sparse side. Stemming is worth
    # +0.018 nDCG@10 on BEIR SciFact (0.684 vs 0.666); stop words and ASCII folding change nothing there.
    keyword_language: str = Field("English", description="Language of keyword stemming and stop words.")
    keyword_stem: bool = Field(True, description="Stem keyword terms (changing it needs a reindex).")
    keyword_stop_words: bool = Field(True, description="Drop stop words from keyword terms.")

    # --- retrieval -------------------------------------------------------------------------------
    search_mode: SearchMode = "hybrid"
    top_k: int = Field(5, ge=1, le=20)
    # Minimum dense cosine of a chunk to count as retrieved. all-MiniLM-L6-v2 cosines of off-topic
    # questions mostly stay below 0.27 on the textbook benchmarks; a reader's paraphrase of the passage
    # that answers it can score as low (0.27-0.30, found by the keyword side). 0.27 keeps those and the
    # answerability decision, trained at this threshold, refuses the rest (docs/confidence-calibration.md:
    # 0.30 -> 0.27 answered more in-scope questions and refused more near misses, book by book).
    similarity_threshold: float = Field(0.27, ge=0.0, le=1.0)
    rrf_k: int = Field(60, ge=1, le=1000)

    # --- confidence (seed 000 rules; thresholds calibrated per embedding model) -------------------
    # The seed's 0.85/0.75/0.60 suit OpenAI embeddings; MiniLM cosines run lower. Calibrated on 111
    # in-scope, 40 off-topic and 42 near-miss questions (docs/confidence-calibration.md): half of the
    # in-scope questions average >= 0.60 over their top 5 chunks, 90% >= 0.47; near misses 0.37.
    confidence_high: float = Field(0.60, ge=0.0, le=1.0)
    confidence_medium: float = Field(0.50, ge=0.0, le=1.0)
    confidence_low: float = Field(0.40, ge=0.0, le=1.0)
    guardrail_term_check: bool = Field(
        True, description="Also refuse when the question names something no retrieved chunk mentions."
    )

    # --- conversation ----------------------------------------------------------------------------
    max_history: int = Field(20, ge=1, le=100)

    # --- LLM writer (any OpenAI-compatible chat model) --------------------------------------------
    llm_provider: Literal["extractive", "openai"] = "extractive"
    llm_base_url: str = ""
    llm_api_key: SecretStr = SecretStr("")
    llm_model: str = "gpt-4o-mini"
    llm_temperature: float = Field(0.2, ge=0.0, le=2.0)
    llm_max_tokens: int = Field(1024, ge=1, le=4096)
    llm_stall_timeout_s: float = Field(30.0, gt=0, le=600)
    llm_max_tool_calls: int = Field(3, ge=1, le=10)
    llm_context_tokens: int = Field(
        128_000, ge=2048, le=10_000_000, description="The chat model's context window, in tokens."
    )
    llm_writer_mode: Literal["auto", "tools", "context"] = Field(
        "auto",
        description=(
            "tools: the model searches through the retrieve_context tool; context: Lectern retrieves and "
            "puts numbered passages in the prompt (no tool support needed); auto: tools when the server "
            "says the model can call them (llama.cpp /props, Ollama /api/show, else a one-time probe)."
        ),
    )
    llm_unsupported: Literal["drop", "flag"] = Field(
        "drop", description="What happens to an answer's sentences its passages do not support."
    )
    llm_support_threshold: float = Field(
        0.5, ge=0.0, le=1.0, description="Blended lexical/semantic overlap a cited sentence needs."
    )

    # --- service ---------------------------------------------------------------------------------
    database_url: str = Field("", description="Empty uses SQLite in data_dir.")
    redis_url: str = ""
    api_keys: Annotated[list[SecretStr], NoDecode] = Field(
        default_factory=list, description="API keys: key1,key2 or a JSON list."
    )
    rate_limit: str = Field("100/minute", description="A `limits` rate string, per API key.")
    auth_failure_limit: str = Field(
        "20/minute",
        description="Failed authentications per client address; over it, the address gets 429s until "
        "the window passes (keys are not even checked). Empty turns it off.",
    )
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Allowed browser origins: https://a.example,https://b.example."
    )
    max_body_bytes: int = Field(1_048_576, ge=1024)
    release_code_pages: bool = Field(
        True,
        description="A server drops the shared-library pages it ran once (start-up, table loads) from "
        "its resident memory; they come back from the page cache when run again.",
    )
    session_idle_archive_s: int = Field(3600, ge=1)
    session_max_waiting: int = Field(
        8, ge=0, le=1000, description="Questions that may wait behind the one being answered, per session."
    )
    session_turn_wait_s: float = Field(
        60.0, gt=0, le=3600, description="How long a question waits for its session's previous turn."
    )
    model_name: str = Field("lectern", description="Model name served on /v1/models.")
    metrics_enabled: bool = Field(True, description="Serve Prometheus metrics at /metrics.")
    metrics_port: int = Field(
        0,
        ge=0,
        le=65535,
        description="0 serves /metrics on the API port behind the API keys; a port serves it there, "
        "unauthenticated, on the same host as the API.",
    )
    shutdown_drain_s: float = Field(
        20.0, ge=0, le=600, description="On shutdown, how long in-flight answers may finish."
    )
    worker_balance: bool = Field(
        True,
        description="With several workers, ask a client to reconnect when its worker holds two or "
        "more keep-alive connections than another (an uneven split sets the tail latency).",
    )

    # --- browsers: the widget, publishable keys, the chat page -------------------------------------
    publishable_keys: list[PublishableKey] = Field(
        default_factory=list,
        description="Keys for public pages: chat and feedback only, from their allowed origins only.",
    )
    publishable_rate_limit: str = Field(
        "20/minute", description="A `limits` rate string, per publishable key and reader address."
    )
    chat_page: bool = Field(True, description="Serve the reader's chat page at /.")
    chat_page_title: str = Field("Ask the docs", max_length=120)
    chat_page_key: SecretStr = Field(
        SecretStr(""), description="The publishable key the chat page uses when API keys are on."
    )
    log_format: Literal["auto", "text", "json"] = Field(
        "auto", description="Server logs: text on a terminal and JSON otherwise (auto), or always one."
    )

    @field_validator("api_keys", "cors_origins", mode="before")
    @classmethod
    def _comma_lists(cls, value: Any) -> Any:
        return _split_list(value)

    @model_validator(mode="after")
    def _check_confidence_order(self) -> Settings:
        if not (self.confidence_low <= self.confidence_medium <= self.confidence_high):
            raise ValueError(
                "LECTERN_CONFIDENCE_LOW <= LECTERN_CONFIDENCE_MEDIUM <= LECTERN_CONFIDENCE_HIGH must hold"
            )
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=_config_file())
        return init_settings, env_settings, dotenv_settings, toml, file_secret_settings

    # --- derived paths ---------------------------------------------------------------------------
    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def model_cache_dir(self) -> Path:
        return (self.model_cache or self.data_dir / "models").absolute()

    @property
    def state_db_path(self) -> Path:
        """SQLite file with the ingest manifest (which document produced which chunks)."""
        return self.data_dir / "ingest.sqlite3"

    @property
    def effective_pgvector_url(self) -> str:
        """The libpq URL of the pgvector index: its own, else the conversations' PostgreSQL."""
        if self.pgvector_url:
            return self.pgvector_url
        scheme, sep, rest = self.database_url.partition("://")
        if sep and scheme.split("+", 1)[0] in ("postgresql", "postgres"):
            return f"postgresql://{rest}"
        return ""

    @property
    def effective_database_url(self) -> str:
        return self.database_url or f"sqlite+aiosqlite:///{(self.data_dir / 'lectern.sqlite3').resolve()}"


def _closest(name: str, known: list[str]) -> str:
    match = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean {match[0]}?)" if match else ""


def check_environment(environ: dict[str, str] | os._Environ[str] | None = None) -> None:
    """An unknown LECTERN_* variable is a typo until proven otherwise: name it and the closest one."""
    env = os.environ if environ is None else environ
    known = [f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields]
    for variable in sorted(env):
        if not variable.upper().startswith(ENV_PREFIX):
            continue
        rest = variable[len(ENV_PREFIX) :].upper()
        if variable.upper() in known or rest in OTHER_VARIABLES or rest.startswith(OTHER_PREFIXES):
            continue
        raise ConfigError(f"unknown setting {variable}{_closest(variable.upper(), known)}")


def check_config_file(path: Path | None = None) -> None:
    """The TOML file parses, exists when LECTERN_CONFIG names it, and holds only known keys."""
    path = _config_file() if path is None else path
    if not path.exists():
        if f"{ENV_PREFIX}CONFIG" in os.environ:
            raise ConfigError(f"LECTERN_CONFIG: the file {path} does not exist")
        return
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc})") from None
    known = list(Settings.model_fields)
    for key in data:
        if key not in Settings.model_fields:
            raise ConfigError(f"{path}: unknown key '{key}'{_closest(key, known)}")


def load_settings(**overrides: object) -> Settings:
    """Build settings, turning a validation failure into one message per bad variable."""
    check_environment()
    check_config_file()
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "settings"
            name = f"{ENV_PREFIX}{field.upper()}" if err["loc"] else "settings"
            problems.append(f"{name}: {err['msg']}")
        raise ConfigError("Invalid configuration: " + "; ".join(problems)) from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings, read once."""
    return load_settings()
