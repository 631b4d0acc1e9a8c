"""The model servers Helena talks to: Ollama (ollama) and OpenAI-compatible servers (openai_compat)
over one HTTP client per loop (http), their health (health), the stream turned into Chunks through
the dialect parser (stream), and the scripted model the tests and the demo use (scripted)."""
