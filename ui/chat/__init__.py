"""The chat (Chainlit 2.x): `app` handles its events, `launch` and `serve` start the server with `guard` in front,
`first_screen` is what an empty chat shows, `render`, `views`, `steps` and `progress` show a check. `chainlit.toml`,
`welcome.md` and `public/` are copied into the app root Chainlit runs in (ui.chat.launch.prepare). Nothing here is
imported at package level, so the terminal can read `render` without loading Chainlit."""
