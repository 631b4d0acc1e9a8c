"""The life of a run, one module a job.

- dispatch: start a committed run (inline on the process's runner loop, or on Celery)
- execute: claim it, read what it needs, resolve the model, run the agent loop, escalate, record
- setup: the offered tools and their executor, the system prompt, the tool context with its ports
- ports: what the agent core may ask of the world (ask the user, keep a plan, a second model)
- history: the conversation's earlier turns for the model (long ones summarised)
- emitter: every event stored, then broadcast (and guard warnings and errors to the error log)
- store, event_store: the events in the database, one writer per event loop
- broadcast: events to the conversation's Channels group, which every socket on it listens to
- cancel: the cancel flags of all running runs, one reader per process
- limits: the loop's limits and a run's deadline
- admission: runs per hour and concurrent runs per user
- sweep: runs whose worker died
"""
