"""The life of a run, one module a job.

- dispatch: start a committed run (inline on the process's runner loop, or on Celery)
- execute: claim it, read what it needs, resolve the model, run the agent loop, escalate, record
- emitter: every event stored, then broadcast (and guard warnings and errors to the error log)
- store: the events in the database, one writer per event loop
- cancel: the cancel flags of all running runs, one reader per process
- limits: the loop's limits and a run's deadline
- admission: runs per hour and concurrent runs per user
- sweep: runs whose worker died
"""
