"""The workspace watcher: file changes made while the server runs reach the graph without a rescan.

`watchfiles.awatch` (Rust `notify`: inotify, FSEvents, ReadDirectoryChangesW) watches the whole workspace root,
`<root>/<tenant>/…`. Its own grouping is the debounce: a batch is handed over once no change has come for
`debounce_ms` (watchfiles' `step`), and a stream of changes that never pauses is cut every ten of those
(watchfiles' `debounce`), so a half-written file is read again once its writer is done. Each settled batch is split
by tenant (the first folder under the root, as in `Workspace.file_for`) and only its paths go to
`WorkspaceSync.sync_paths`: same hashing, same ownership from the path, same skips and refusals as a scan; an
unchanged hash costs a read and queues nothing. Paths a walk never enters (hidden, `.git`, `node_modules`) are
filtered out before that. A failing batch is logged and the watcher goes on; if the watch itself fails it is
started again after a pause.

The lifespan owns it: `await watcher.start()` / `await watcher.stop()`, or `async with watcher:`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from types import TracebackType

import structlog
from watchfiles import Change, awatch

from vaultgraph import file_walk
from vaultgraph.errors import InvalidInput
from vaultgraph.services.workspace_sync import ScanReport, WorkspaceSync
from vaultgraph.workspace import check_key

log = structlog.get_logger(__name__)

GROUP_STEPS = 10  # a batch of changes that never settles is handed over after this many debounce periods
RESTART_SECONDS = 1.0  # pause before watching again after the watch itself failed (doubling while it keeps failing)
MAX_RESTART_SECONDS = 60.0


def _tenant_paths(root: Path, changes: Iterable[tuple[Change, str]]) -> dict[str, set[str]]:
    """The changed paths by tenant, tenant-relative ("" for the tenant's folder itself); others left out.

    A folder that was only modified (its entries or metadata) is left out: its files report their own changes.
    An added folder is kept (it is walked: files written into it before it was watched are not missed).
    Blocking (it looks at the disk): run it in a thread.
    """
    by_tenant: dict[str, set[str]] = {}
    for change, raw in changes:
        if change is Change.modified and Path(raw).is_dir():
            continue
        try:
            parts = PurePosixPath(Path(raw).relative_to(root).as_posix()).parts
        except ValueError:
            continue  # not under the root (watchfiles reports only paths under it; kept as a guard)
        if not parts or _hidden(parts):
            continue
        try:
            tenant = check_key(parts[0], "tenant")
        except InvalidInput:
            continue  # not a tenant's folder: nothing in it can be a document
        by_tenant.setdefault(tenant, set()).add("/".join(parts[1:]))
    return by_tenant


def _hidden(parts: tuple[str, ...]) -> bool:
    return any(file_walk.skipped_name(part) for part in parts)


class WorkspaceWatcher:
    """Watches `root` (every tenant's folder under it) and hands each settled batch to `sync.sync_paths`."""

    def __init__(self, sync: WorkspaceSync, root: Path, debounce_ms: int = 500) -> None:
        if debounce_ms < 1:
            raise ValueError("debounce_ms must be at least 1")
        self.sync = sync
        self.root = root.resolve()
        self.debounce_ms = debounce_ms
        self.batches = 0  # batches handed to the sync code since start (for logs and health checks)
        self.last_reports: list[ScanReport] = []  # what the latest batch did, one report per tenant
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start watching (the root is created if missing). Returns once the watch task runs."""
        if self.running:
            return
        await asyncio.to_thread(self.root.mkdir, parents=True, exist_ok=True)
        self._stop = asyncio.Event()
        self._task = asyncio.create_task(self._watch(), name="workspace-watcher")
        log.info("workspace watcher started", root=str(self.root), debounce_ms=self.debounce_ms)

    async def stop(self) -> None:
        """Stop watching; a batch being synced is finished first, within a bound, then cancelled."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        try:
            # watchfiles looks at the stop event every `step`; a batch in flight gets a few seconds more.
            await asyncio.wait_for(asyncio.shield(task), timeout=self.debounce_ms / 1000 * 2 + 10)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        log.info("workspace watcher stopped", root=str(self.root), batches=self.batches)

    async def __aenter__(self) -> WorkspaceWatcher:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.stop()

    def _keep(self, change: Change, path: str) -> bool:
        """watchfiles' filter: drop what a walk never enters before it reaches a batch."""
        try:
            parts = Path(path).relative_to(self.root).parts
        except ValueError:
            return False
        return bool(parts) and not _hidden(parts)

    async def _watch(self) -> None:
        pause = RESTART_SECONDS
        while not self._stop.is_set():
            try:
                async for changes in awatch(self.root, watch_filter=self._keep, step=self.debounce_ms,
                                            debounce=self.debounce_ms * GROUP_STEPS, stop_event=self._stop,
                                            recursive=True):
                    pause = RESTART_SECONDS
                    await self.handle(changes)
            except asyncio.CancelledError:
                raise
            except Exception:  # e.g. the root removed, or inotify's watch limit reached
                log.exception("workspace watch failed; watching again", root=str(self.root), pause=pause)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), pause)
                pause = min(pause * 2, MAX_RESTART_SECONDS)
                with contextlib.suppress(OSError):
                    await asyncio.to_thread(self.root.mkdir, parents=True, exist_ok=True)

    async def handle(self, changes: Iterable[tuple[Change, str]]) -> list[ScanReport]:
        """Sync one settled batch of changes, tenant by tenant; a failing tenant is logged, the others go on."""
        reports: list[ScanReport] = []
        by_tenant = await asyncio.to_thread(_tenant_paths, self.root, list(changes))
        for tenant, paths in sorted(by_tenant.items()):
            try:
                reports.append(await self.sync.sync_paths(tenant, paths))
            except Exception:
                log.exception("workspace batch failed", tenant=tenant, paths=len(paths))
        self.batches += 1
        self.last_reports = reports
        return reports
