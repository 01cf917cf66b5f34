"""The model interface (messages and tools in; text, tool calls and usage out) and its adapters."""
