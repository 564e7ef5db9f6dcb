"""No provider setting of the developer's environment reaches a test.

The autouse fixture of ``tests/conftest.py`` clears :data:`tests.conftest.PROVIDER_ENV_VARS`. These tests
check that list against the environment variables the installed ``openai`` and ``anthropic`` SDKs
actually read (so an SDK upgrade that adds one fails here, naming it), and that the fixture clears them.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import PROVIDER_ENV_VARS

REPO = Path(__file__).resolve().parents[1]
SDKS = ("openai", "anthropic")
# Names shaped like the SDKs' own variables (found also when read through a constant or a tuple).
_SDK_VARIABLE = re.compile(r"(OPENAI|ANTHROPIC|AZURE_OPENAI)_[A-Z0-9_]*[A-Z0-9]")
#: Variables the SDKs read that configure no provider, so a test may keep them.
NOT_PROVIDER_SETTINGS = {
    "APPDATA": "Windows' roaming folder, where the anthropic SDK looks for credential profiles",
    "DEFER_PYDANTIC_BUILD": "when pydantic builds the SDKs' models",
}


def _is_environ(node: ast.expr) -> bool:
    """``os.environ`` or a bare ``environ``."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ"
    )


def _variables_read(source: str) -> set[str]:
    """Environment variable names in ``source``: literal arguments of ``os.environ.get``,
    ``os.getenv`` and ``os.environ[...]``, and every string literal shaped like an SDK variable."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        key: ast.expr | None = None
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "get" and _is_environ(func.value)) or (
                isinstance(func, ast.Attribute) and func.attr == "getenv"
            ):
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.add(key.value)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _SDK_VARIABLE.fullmatch(node.value):
                names.add(node.value)
    return names


def _sdk_variables(sdk: str) -> set[str]:
    spec = importlib.util.find_spec(sdk)
    assert spec is not None and spec.submodule_search_locations, f"{sdk} is not installed"
    root = Path(next(iter(spec.submodule_search_locations)))
    names: set[str] = set()
    for path in root.rglob("*.py"):
        if "types" in path.relative_to(root).parts:
            continue  # generated API models: no configuration is read there
        names |= _variables_read(path.read_text(encoding="utf-8"))
    return names


def test_the_list_covers_every_variable_the_sdks_read() -> None:
    read = {sdk: _sdk_variables(sdk) for sdk in SDKS}
    # The scan sees what each SDK is known to read (it would otherwise prove nothing).
    assert {"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID"} <= read["openai"]
    assert {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"} <= read["anthropic"]
    known = set(PROVIDER_ENV_VARS) | set(NOT_PROVIDER_SETTINGS)
    missing = {sdk: sorted(names - known) for sdk, names in read.items()}
    assert not any(missing.values()), f"add to PROVIDER_ENV_VARS in tests/conftest.py: {missing}"
    assert len(set(PROVIDER_ENV_VARS)) == len(PROVIDER_ENV_VARS), "a variable is listed twice"


def test_no_provider_variable_reaches_a_test() -> None:
    leaked = sorted(var for var in PROVIDER_ENV_VARS if var in os.environ)
    assert not leaked, f"provider variables visible inside a test: {leaked}"


def test_the_fixture_clears_variables_set_before_the_run() -> None:
    # The test above, in a pytest run whose environment sets every provider variable.
    env = {**os.environ, **{var: "sk-leaked-from-the-environment" for var in PROVIDER_ENV_VARS}}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"{Path(__file__).relative_to(REPO).as_posix()}::test_no_provider_variable_reaches_a_test"],
        capture_output=True, text=True, timeout=120, cwd=REPO, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
