"""What the user sees: the chat (`chat/`, Chainlit), the `claimtrace` command line (`terminal/`), a check exported as
a file (`export/`), and what both chat and terminal show alike (`shared/`: untrusted text made literal, badges, the
consensus line). Imports point from chat and terminal to export and shared, and from terminal to chat (`claimtrace
ui` starts it; the terminal reuses the chat's verdict and stance wording), never back."""
