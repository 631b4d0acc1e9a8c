"""The life of a run, one module a job.

- dispatch: start a committed run (inline on the process's runner loop, or on Celery)
- execute: claim it, read what it needs, resolve the model, run the agent loop, escalate, record
- setup: the offered tools and their executor, the system prompt, the tool context with its ports
- ports: what the agent core may ask of the world (ask the user, keep a plan, a second model)
- history: the conversation's earlier turns for the model (long ones summarised)
- events/: every event stored, then published to the conversation's sockets
- ending: what else happens when a run has ended (hooks registered from above: an Auftrag ends)
- cancel: the cancel flags of all running runs, one reader per process
- step_limits: the loop's limits (steps, timeout, tool calls per turn) and a run's deadline
- rate_limit: runs per hour and concurrent runs per user (admission)
- sweep: runs whose worker died
"""
