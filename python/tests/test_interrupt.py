"""Ctrl-C while a job runs: the job's thread is told to stop, nothing is committed,
KeyboardInterrupt is raised in the caller, and the interpreter and the next job carry on."""

from __future__ import annotations

import _thread
import signal
import threading
import time

import pytest

import bloomjoin
from conftest import SAMPLE

USERS = str(SAMPLE / "users")
COMMENTS = str(SAMPLE / "comments")


def test_ctrl_c_raises_keyboard_interrupt_commits_nothing_and_the_next_job_runs(
    tmp_path, monkeypatch
):
    # Python handles Ctrl-C only where SIGINT was not ignored when it started (a process
    # started in the background by a non-interactive shell inherits SIG_IGN, and then
    # interrupt_main() does nothing): install the handler an interactive session has.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        interrupt_a_join(tmp_path, monkeypatch)
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupt_a_join(tmp_path, monkeypatch):
    filt = tmp_path / "u.bjf"
    bloomjoin.train(input=USERS, column="Id", output=filt)
    # The job stops for up to a minute between moving its parts and writing _SUCCESS, and
    # says so in the mark file: Ctrl-C lands in the commit, the latest moment it can.
    mark = tmp_path / "reached-commit"
    monkeypatch.setenv("BLOOMJOIN_FAULT", "commit:sleep-60000")
    monkeypatch.setenv("BLOOMJOIN_FAULT_MARK", str(mark))
    go = threading.Event()

    def ctrl_c():
        go.wait()
        while not mark.exists():
            time.sleep(0.01)
        _thread.interrupt_main()  # what Ctrl-C does: SIGINT's handler in the main thread

    t = threading.Thread(target=ctrl_c)
    t.start()
    options = dict(filter=str(filt), left=USERS, left_key="Id", right=COMMENTS,
                   right_key="UserId", workers=1, batch_size=256)
    with pytest.raises(KeyboardInterrupt):
        go.set()
        bloomjoin.join(output=str(tmp_path / "interrupted"), **options)
    t.join()
    interrupted = tmp_path / "interrupted"
    assert not (interrupted / "_SUCCESS").exists()
    assert not list(interrupted.glob("part-*")), "a cancelled job left parts"
    assert not list(interrupted.glob("_temporary/*/*")), "a cancelled job left staged parts"
    monkeypatch.delenv("BLOOMJOIN_FAULT")
    report = bloomjoin.join(output=str(tmp_path / "next"), **options)
    assert report["rows_out"] > 0 and (tmp_path / "next" / "_SUCCESS").exists()
