"""The `providers` settings key: model back ends besides Anthropic's API.

```json
"providers": {
  "local": {
    "type": "openai-chat",
    "baseUrl": "http://localhost:11434/v1",
    "apiKeyEnv": "OLLAMA_API_KEY",
    "models": {"qwen3-coder": {"contextWindow": 65536, "inputPrice": 0, "outputPrice": 0}}
  }
}
```

A model is then named `provider/model` (`--model local/qwen3-coder`, in
`"model"`, with `/model`). `apiKeyEnv` names the environment variable that
holds the key (never the key itself, so settings files can be shared);
servers that need no key leave it out. Per model, all optional:
`contextWindow` (tokens), `maxOutputTokens` (sent as the reply's limit;
without it the server decides), and prices in dollars per million tokens:
`inputPrice`, `outputPrice`, `cachedInputPrice` (cache reads; the input
price when not given). A model without prices has an unknown cost.
`reasoningEfforts` lists the `reasoning_effort` values the model takes (`[]`:
none), for a model whose name does not tell (docs/effort.md).
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

ProviderType = Literal["anthropic", "openai-chat", "openai-responses"]
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _provider_name(value: str) -> str:
    if not _NAME.match(value):
        raise ValueError("a provider name is letters, digits, '.', '_' and '-' (no '/')")
    return value


def _variable_name(value: str) -> str:
    if not _VARIABLE.match(value):
        raise ValueError("the name of an environment variable, such as OPENAI_API_KEY")
    return value


def _http_url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError("an http:// or https:// address, such as http://localhost:11434/v1")
    return value


class ModelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    contextWindow: int | None = Field(None, gt=0)
    maxOutputTokens: int | None = Field(None, gt=0)
    inputPrice: float | None = Field(None, ge=0)
    outputPrice: float | None = Field(None, ge=0)
    cachedInputPrice: float | None = Field(None, ge=0)
    # The `reasoning_effort` values the model takes ([]: none), where its name does not
    # tell (core/model_catalog.py `openai_efforts`).
    reasoningEfforts: list[Literal["none", "minimal", "low", "medium", "high", "xhigh"]] | None = (
        None
    )


class ProviderSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    type: ProviderType
    baseUrl: Annotated[str, AfterValidator(_http_url)] | None = None
    apiKeyEnv: Annotated[str, AfterValidator(_variable_name)] | None = None
    models: dict[str, ModelSettings] = Field(default_factory=dict)


ProviderName = Annotated[str, AfterValidator(_provider_name)]
ProvidersSettings = dict[ProviderName, ProviderSettings]
