"""Durable runs: a run outlives the process that started it (issue 38, docs/betrieb.md „Läufe, die
einen Absturz überstehen“).

- checkpoints: the run's state after each completed step, kept on its AgentRun row, and what a
  resumed run needs (the checkpoint, what the client has already seen).
- local: this process's runs, its name, and whether it is handing its runs over (SIGTERM).
- watch: one thread per process — the heartbeat of its runs, and the takeover of runs whose
  heartbeat lapsed (their process is gone) or that were handed over.
- shutdown: the graceful handover when daphne or a Celery worker is told to stop.

Learned from Temporal (activity heartbeats, a lapsed heartbeat makes the activity retryable
elsewhere), LangGraph (a checkpoint per step; pending writes: the calls decided but not yet
answered) and Celery (acks_late: work is acknowledged when done, not when taken). Fencing: every
takeover raises AgentRun.attempt, and a run's events are stored only in its current attempt.
"""
