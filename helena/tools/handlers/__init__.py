"""One module per tool family, discovered by helena.tools.registry: Akten, Dokumente, drafts (the
write tools: they propose, never write), Fristen, knowledge (statutes, decisions, Muster), meta
(plan, ask the user), rechner (fees, deadlines), web (search outside, redacted), zeiterfassung."""
