// One websocket that resumes where it stopped, for the pages that follow a run live (live.js,
// training.js): it reconnects with capped exponential backoff and asks for what came after the
// last item the page saw, so the server sends exactly what was missed (apps/common/websockets.py).
// A close code 44xx means the user may not watch: no retry. Returns {close()}.
window.resumingSocket = function (options) {
  // options: path (the websocket's path), after() (the last item seen), receive(message),
  // ended() (true once the run has ended: no reconnect), status(text) (the connection line).
  const stream = { socket: null, retry: 0 };
  function open() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + options.path + "?after=" + options.after());
    stream.socket = socket;
    socket.onopen = () => { stream.retry = 0; options.status("live"); };
    socket.onmessage = (message) => options.receive(JSON.parse(message.data));
    socket.onclose = (closed) => {
      stream.socket = null;
      if (options.ended()) { options.status(""); return; }
      if (closed.code >= 4400 && closed.code < 4500) { options.status("not allowed to watch (" + closed.code + ")"); return; }
      const delay = Math.min(10000, 500 * 2 ** stream.retry++);
      options.status("reconnecting…");
      setTimeout(open, delay);
    };
  }
  open();
  return { close() { if (stream.socket) stream.socket.close(1000); } };
};
