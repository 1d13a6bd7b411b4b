"""`--llm PROVIDER:MODEL`: which answer writer a command uses.

`extractive` (no model), or an OpenAI-compatible chat model: `openai:gpt-4o-mini`. The names of common
OpenAI-compatible servers are accepted as providers too and bring their usual local address, used
only when `LECTERN_LLM_BASE_URL` is not set: `vllm:Qwen/Qwen2.5-7B-Instruct`, `ollama:llama3.1:8b`
(everything after the first colon is the model, colons included), `llamacpp:any`,
`openrouter:meta-llama/llama-3.1-70b-instruct`.

Imports nothing heavy, so the CLI can parse its flags without loading the SDK.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lectern.errors import ConfigError

ProviderName = Literal["extractive", "openai"]

DEFAULT_BASE_URLS: dict[str, str] = {
    "openai": "",
    "vllm": "http://127.0.0.1:8000/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "llamacpp": "http://127.0.0.1:8080/v1",
    "llama.cpp": "http://127.0.0.1:8080/v1",
    "openrouter": "https://openrouter.ai/api/v1",
}


@dataclass(frozen=True)
class LLMSpec:
    provider: ProviderName
    """The writer: `extractive` or `openai` (any OpenAI-compatible endpoint)."""
    model: str
    """Empty for `extractive`."""
    base_url: str = ""
    """The usual address of the named server; empty means the settings' (or OpenAI's)."""

    def settings_overrides(self, current_base_url: str = "") -> dict[str, str]:
        """Keyword arguments for `load_settings`; an explicitly set base URL wins over the default."""
        out: dict[str, str] = {"llm_provider": self.provider}
        if self.provider == "openai":
            out["llm_model"] = self.model
            if self.base_url and not current_base_url:
                out["llm_base_url"] = self.base_url
        return out


def parse_llm_spec(spec: str) -> LLMSpec:
    """`"openai:gpt-4o-mini"` → `LLMSpec("openai", "gpt-4o-mini")`; `"extractive"` → the default writer."""
    text = spec.strip()
    provider, sep, model = text.partition(":")
    provider = provider.strip().lower()
    model = model.strip()
    if provider == "extractive":
        if model:
            raise ConfigError(f"--llm {spec!r}: the extractive writer takes no model")
        return LLMSpec("extractive", "")
    if provider not in DEFAULT_BASE_URLS:
        known = ", ".join(["extractive", *DEFAULT_BASE_URLS])
        raise ConfigError(f"--llm {spec!r}: unknown provider {provider or '(empty)'!r}; use one of {known}")
    if not sep or not model:
        raise ConfigError(f"--llm {spec!r}: give a model, as in {provider}:MODEL")
    return LLMSpec("openai", model, DEFAULT_BASE_URLS[provider])
