"""hippograph inside agent frameworks: LangChain, LangGraph and the OpenAI Agents SDK, each an optional extra."""
