/* claimtrace: a reopened thread keeps its socket (docs/ui.md, "Reopening a thread").

Chainlit 2.x's client POSTs /set-session-cookie before it opens each socket, and every new socket replaces the
previous one. Loading /thread/<id> starts two connects: one before the page knows which thread it resumes (a new,
empty chat) and one after (the resumed thread). When the first POST answers last, under load, its socket replaces
the resumed one, and the next message goes to a new, hidden thread while the old one stays on screen. Only the
newest connect is wanted, so the answer to a superseded POST is never handed back: that stale connect just stops.
Loaded by ui/chat/chainlit.toml ([UI] custom_js) as a plain script, before Chainlit's own. */
(function () {
  "use strict";
  var fetch0 = window.fetch.bind(window);
  var newest = 0;
  var never = function () {
    return new Promise(function () {});
  };
  window.fetch = function (input, init) {
    var url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (url.indexOf("/set-session-cookie") === -1) {
      return fetch0(input, init);
    }
    var mine = ++newest;
    return fetch0(input, init).then(
      function (response) {
        if (mine !== newest) return never();
        var json0 = response.json.bind(response);
        // checked again once the body is read: Chainlit opens the socket right after it
        response.json = function () {
          return json0().then(function (data) {
            return mine === newest ? data : never();
          });
        };
        return response;
      },
      function (error) {
        if (mine !== newest) return never();
        throw error;
      }
    );
  };
})();
