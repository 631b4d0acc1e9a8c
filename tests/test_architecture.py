"""The shape of the code, enforced (issue 17): import contracts, no import cycles, lint, module size.

docs/architecture.md explains the layers; pyproject.toml holds the contracts.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import grimp

BASE_DIR = Path(__file__).resolve().parent.parent
PACKAGES = ("akten", "drafts", "helena", "config")
MAX_LINES = 400
# Data, not logic: tables of statutes' terms, demo records, fee tables. Longer is fine.
DATA_MODULES = {
    "akten/demo.py",
    "helena/knowledge/demo.py",
    "helena/knowledge/laienbegriffe.py",
}


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, check=False,
                          env={"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(BASE_DIR)})


def test_the_import_contracts_hold() -> None:
    result = _run(str(Path(sys.executable).parent / "lint-imports"), "--no-cache")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_no_module_imports_itself_through_others() -> None:
    """Module-level cycles (function-level imports included, imports only for type checkers not):
    none."""
    graph = grimp.build_graph(*PACKAGES, include_external_packages=False, exclude_type_checking_imports=True)
    cycles = [sorted(scc) for scc in _strongly_connected(graph) if len(scc) > 1]
    assert cycles == []


def _strongly_connected(graph: grimp.ImportGraph) -> list[set[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0

    def visit(start: str) -> None:  # iterative Tarjan: the graph is deep enough for recursion limits
        nonlocal counter
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(component)

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_ruff_is_clean() -> None:
    """Lint, including imports only at the top of a module and a complexity limit."""
    result = _run(sys.executable, "-m", "ruff", "check", ".")
    assert result.returncode == 0, result.stdout[-4000:]


def test_production_modules_fit_one_sitting() -> None:
    too_long = {}
    for package in PACKAGES:
        for path in (BASE_DIR / package).rglob("*.py"):
            relative = path.relative_to(BASE_DIR).as_posix()
            if "/migrations/" in relative or relative in DATA_MODULES:
                continue
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                too_long[relative] = lines
    assert too_long == {}


# The root of helena/ keeps only what Django and Celery look for; everything else lives in a folder
# that names its layer (docs/architecture.md "Inside helena/").
HELENA_ROOT_MODULES = {"__init__.py", "apps.py", "urls.py", "routing.py", "tasks.py", "signals.py"}


def _packages() -> set[str]:
    found = set()
    for package in PACKAGES:
        for init in (BASE_DIR / package).rglob("__init__.py"):
            found.add(init.parent.relative_to(BASE_DIR).as_posix() + "/")
    return found


def test_the_root_of_helena_holds_only_the_conventional_modules() -> None:
    loose = {path.name for path in (BASE_DIR / "helena").glob("*.py")} - HELENA_ROOT_MODULES
    assert loose == set(), f"put these in the folder of their layer: {sorted(loose)}"


def test_docs_architecture_names_every_package_once() -> None:
    """A package a new engineer cannot find on the map is as good as hidden; a name on the map
    without a package sends them looking for nothing."""
    text = (BASE_DIR / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = [line.split("`")[1] for line in text.splitlines() if line.startswith("- `") and "/`" in line]
    assert len(named) == len(set(named)), "a package is named twice"
    packages = _packages()
    assert packages - set(named) == set(), "packages missing from docs/architecture.md „Every package“"
    assert set(named) - packages == set(), "docs/architecture.md names packages that do not exist"


def test_every_package_says_what_it_is() -> None:
    """Each package of helena opens with a docstring: the folder's one line, in the code itself."""
    silent = []
    for package in sorted(_packages()):
        if not package.startswith("helena/") or package.count("/migrations/") or package.endswith(
                ("management/", "commands/", "migrations/", "templatetags/")):
            continue
        source = (BASE_DIR / package / "__init__.py").read_text(encoding="utf-8").lstrip()
        if not source.startswith('"""'):
            silent.append(package)
    assert silent == []


_PATH_RE = re.compile(r"(?<![\w./])((?:helena|akten|drafts|config|tests|bench)/[\w/]*\w\.py)\b")
_DOTTED_RE = re.compile(r"(?<![\w./])((?:helena|akten|drafts|config)(?:\.[A-Za-z_]\w*){2,})")


def _resolves(parts: list[str]) -> bool:
    """A dotted name names a module, or a name defined or imported in one."""
    for end in range(len(parts), 0, -1):
        base = BASE_DIR.joinpath(*parts[:end])
        source = base.with_suffix(".py") if base.with_suffix(".py").is_file() else base / "__init__.py"
        if source.is_file():
            if end == len(parts):
                return True
            name = re.escape(parts[end])
            text = source.read_text(encoding="utf-8")
            defined = (rf"^\s*(async def|def|class)\s+{name}\b|^\s*{name}\s*[:=]"
                       rf"|import[^\n]*\b{name}\b|^\s+{name},?$")
            return bool(re.search(defined, text, re.M))
    return False


def test_comments_and_docs_name_only_code_that_exists() -> None:
    """After a move, a docstring that still names the old path sends the next reader to nothing."""
    sources = [*(p for package in (*PACKAGES, "templates", "static") for p in (BASE_DIR / package).rglob("*")
                 if p.suffix in {".py", ".html", ".js", ".css"} and "/migrations/" not in p.as_posix()),
               *(BASE_DIR / "docs").glob("*.md"), BASE_DIR / "README.md"]
    dead = []
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in _PATH_RE.finditer(line):
                if not (BASE_DIR / match.group(1)).is_file():
                    dead.append(f"{path.relative_to(BASE_DIR)}:{number}: {match.group(1)}")
            for match in _DOTTED_RE.finditer(line if path.suffix != ".js" else ""):  # JS: objects
                if not _resolves(match.group(1).split(".")):
                    dead.append(f"{path.relative_to(BASE_DIR)}:{number}: {match.group(1)}")
    assert dead == []


# Ways onto a thread that keep a database connection there: a plain sync_to_async (asgiref's shared
# thread, where Channels' per-message close used to find it), Django's async ORM (the same thread),
# to_thread and executors (threads nobody closes connections on).
_THREAD_WITHOUT_CLOSE = re.compile(
    r"(?<!database_)\bsync_to_async\b|\bSyncToAsync\b|\bto_thread\b|\brun_in_executor\b"
    r"|\.a(get|first|last|count|exists|create|update|delete|save|aggregate|iterator|in_bulk|get_or_create"
    r"|update_or_create|bulk_create|bulk_update|refresh_from_db|contains|earliest|latest|user|get_user)\("
    r"|\basync\s+for\b.*\b(objects|QuerySet)\b")
# The sockets' code and what they call in the loop: the consumers, their login checks, the errors.
_SOCKET_CODE = ["helena/realtime", "akten/accounts/auth.py", "akten/accounts/sitzungen.py",
                "helena/infra/errorlog.py", "config/db_unavailable.py"]


def _code_only(path: Path) -> str:
    """The module without comments and strings (tokenize: a '#' in a string stays a string)."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    kept = [token.string for token in tokens if token.type not in (tokenize.COMMENT, tokenize.STRING)]
    return " ".join(kept).replace(" . ", ".").replace(" (", "(")


def test_the_websockets_reach_the_database_only_through_calls_that_give_connections_back() -> None:
    """helena/realtime/consumer.py drops Channels' per-message hop to close stale connections: that is
    safe only while every socket is a Consumer and no code of theirs reaches the database on a thread
    that keeps a connection (only database_sync_to_async and helena.infra.db.db)."""
    import django

    django.setup()
    from helena.realtime.consumer import Consumer
    from helena.routing import websocket_urlpatterns

    consumers = {pattern.callback.consumer_class for pattern in websocket_urlpatterns}
    assert consumers and all(issubclass(c, Consumer) for c in consumers)
    places = [BASE_DIR / name for name in _SOCKET_CODE]
    paths = [path for place in places for path in (place.rglob("*.py") if place.is_dir() else [place])]
    assert len(paths) > len(_SOCKET_CODE)
    offending = {path.relative_to(BASE_DIR).as_posix(): match.group(0) for path in paths
                 if (match := _THREAD_WITHOUT_CLOSE.search(_code_only(path)))}
    assert offending == {}
