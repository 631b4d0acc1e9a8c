"""How open models write tool calls and reasoning, parsed while they stream (one module a dialect)."""
