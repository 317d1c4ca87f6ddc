"""What the chat and the terminal show alike: untrusted text made literal (`untrusted`), the badges beside a source
(`badges`) and the consensus line (`consensus`)."""
