"""Test-wide set-up: Qt runs offscreen and sessions go to a temporary PlayTrace home."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pytest  # noqa: E402

# The scripted provider server's fixture, for every test that asks for ``loopback``.
from tests.loopback import loopback  # noqa: E402, F401


def pytest_configure(config: pytest.Config) -> None:
    # A Qt object must be destroyed on the thread that owns it. Python's cyclic garbage collector runs
    # in whichever thread happens to allocate (the loopback server, a session's sync thread, an
    # asyncio.to_thread worker), and could delete a test's leftover widget there while the GUI thread
    # is processing events. As in the app (desktop/app.py), collection happens on the main thread only:
    # after every test.
    gc.disable()


_tests_run = 0


@pytest.fixture(autouse=True)
def _collect_garbage_on_the_main_thread() -> Iterator[None]:
    global _tests_run
    yield
    _tests_run += 1
    # The young generations hold what a test left behind and are quick to collect; a full collection
    # (a few hundred milliseconds with Qt loaded) runs now and then.
    gc.collect(generation=2 if _tests_run % 50 == 0 else 1)


#: Every environment variable the installed ``openai`` and ``anthropic`` SDKs read to find keys, servers,
#: accounts, headers, logging or tracing: a developer's own settings must not reach a test (nor a
#: subprocess a test starts). tests/test_provider_env.py checks the list against the installed SDKs.
PROVIDER_ENV_VARS: tuple[str, ...] = (
    # openai: the OpenAI client
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_WEBHOOK_SECRET",
    "OPENAI_ADMIN_KEY", "OPENAI_CUSTOM_HEADERS", "OPENAI_LOG",
    # openai: the Azure client
    "OPENAI_API_TYPE", "OPENAI_API_VERSION", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN",
    "AZURE_OPENAI_ENDPOINT",
    # anthropic: the Anthropic client
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_LOG", "ANTHROPIC_WEBHOOK_SIGNING_KEY",
    "ANTHROPIC_OPEN_TELEMETRY", "ANTHROPIC_OPEN_TELEMETRY_PROPAGATION",
    "ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE", "ANTHROPIC_OPEN_TELEMETRY_TRACES_MAX_CONTENT_BYTES",
    # anthropic: credential profiles and workload identity federation
    "ANTHROPIC_CONFIG_DIR", "ANTHROPIC_PROFILE", "ANTHROPIC_IDENTITY_TOKEN", "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_FEDERATION_RULE_ID", "ANTHROPIC_ORGANIZATION_ID", "ANTHROPIC_SERVICE_ACCOUNT_ID",
    "ANTHROPIC_WORKSPACE_ID", "ANTHROPIC_SCOPE",
    # anthropic: environments and work items
    "ANTHROPIC_ENVIRONMENT_ID", "ANTHROPIC_ENVIRONMENT_KEY", "ANTHROPIC_SESSION_ID", "ANTHROPIC_WORK_ID",
    "ANTHROPIC_WORK_SECRET",
    # anthropic: the AWS / Bedrock, Foundry and Google Cloud / Vertex clients
    "ANTHROPIC_AWS_API_KEY", "ANTHROPIC_AWS_BASE_URL", "ANTHROPIC_AWS_WORKSPACE_ID",
    "ANTHROPIC_BEDROCK_BASE_URL", "ANTHROPIC_BEDROCK_MANTLE_BASE_URL", "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_BEDROCK_BASE_URL", "AWS_REGION", "AWS_DEFAULT_REGION",
    "ANTHROPIC_FOUNDRY_API_KEY", "ANTHROPIC_FOUNDRY_BASE_URL", "ANTHROPIC_FOUNDRY_RESOURCE",
    "ANTHROPIC_GOOGLE_CLOUD_BASE_URL", "ANTHROPIC_GOOGLE_CLOUD_LOCATION", "ANTHROPIC_GOOGLE_CLOUD_PROJECT",
    "ANTHROPIC_GOOGLE_CLOUD_WORKSPACE_ID", "ANTHROPIC_VERTEX_BASE_URL", "ANTHROPIC_VERTEX_PROJECT_ID",
    "CLOUD_ML_REGION", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION",
)


@pytest.fixture(autouse=True)
def _playtrace_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's sessions and settings out of the real user-data folder, and the developer's
    provider keys and servers out of every test."""
    monkeypatch.setenv("PLAYTRACE_HOME", str(tmp_path_factory.mktemp("home")))
    for var in PROVIDER_ENV_VARS:
        monkeypatch.delenv(var, raising=False)
