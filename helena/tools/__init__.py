"""Helena's tools: the machinery here (base: the Tool type for handlers, registry: which tools exist and
who is offered which, executor: run a call — validate, time out, retry, never raise —, audit: the
ToolCallLog row of every call, sources: how a tool cites what it read), the tools themselves in
handlers/."""
