"""The web page for the table: the live game on any phone, the journal's games, the camera's setup view.

An aiohttp server in a background thread with its own event loop
(:mod:`.server`), fed by the game loop through the :class:`.hub.Hub` (a
:class:`companion.referee.view.Spectator`: it keeps the latest view and frame and
never blocks the loop). The routes: the live game and its JSON (:mod:`.live`),
the journal's games (:mod:`.games`), the passphrase-guarded controls and setup
view (:mod:`.controls`); the JSON shapes in :mod:`.state`; the page's files in
``static/``. docs/readme-web.md has the whole story.
"""
