"""The text jobs: short language tasks asked through the chat API, their items, scorers and figures."""
