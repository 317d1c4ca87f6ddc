"""The `claimtrace` command line (`cli`, the console script's entry point): a check printed for the terminal
(`readable`), the kept checks listed and exported (`export`), the user's documents added to the library (`library`)."""
