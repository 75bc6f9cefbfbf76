"""LLM clients: one chat-completion interface (quest.llm.types) over an OpenAI-compatible HTTP
endpoint list with failover, in-process transformers on CPU, and in-process vLLM on GPU workers;
and how this process loads a model (quest.llm.loading)."""
