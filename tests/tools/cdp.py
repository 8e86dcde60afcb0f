"""cdp.py - headless Chromium driven through the Chrome DevTools Protocol,
for the tests that exercise a page's script (test_flame_browser).

Chromium is started with --remote-debugging-pipe: it reads commands from
its file descriptor 3 and writes replies and events to descriptor 4, each
message a JSON object ended by a NUL byte.  That needs nothing but the
browser (Debian's chromium, installed by tools/deps.sh check) and Python's
standard library: no driver, no WebSocket client, no npm package.

    with Browser.start(tmpdir) as b:        # Unavailable if it cannot start
        page = b.open("file:///...")
        page.call("Input.dispatchMouseEvent", type="mouseMoved", x=10, y=20)
        page.eval("document.title")

Every wait is bounded (TIMEOUT seconds), so a hung browser fails the
test instead of hanging it.
"""
import json
import os
import select
import shutil
import subprocess
import time

TIMEOUT = 30.0
CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


class Unavailable(Exception):
    """The browser is not installed or does not start: the test is skipped."""


class ProtocolError(Exception):
    """A command failed, or no answer came in time: the test fails."""


def find_browser():
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, proc, to_browser, from_browser, log):
        self.proc, self.out, self.inp, self.log = proc, to_browser, from_browser, log
        self.next_id, self.buffer, self.events, self.replies = 0, b"", [], {}

    @classmethod
    def start(cls, tmpdir, width=1200, height=900):
        path = find_browser()
        if not path:
            raise Unavailable("no chromium on the PATH (tools/deps.sh check installs Debian's chromium)")
        cmd_r, cmd_w = os.pipe()      # we write commands, it reads fd 3
        ev_r, ev_w = os.pipe()        # it writes fd 4, we read
        log = open(os.path.join(tmpdir, "chromium.log"), "wb")

        def child_fds():
            a, b = os.dup(cmd_r), os.dup(ev_w)  # above 4, whatever the pipes got
            os.dup2(a, 3)
            os.dup2(b, 4)

        # --no-sandbox: the tests may run as root (CI does), where Chromium's
        # sandbox refuses to start; the page is our own file
        args = [path, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--no-default-browser-check", "--remote-debugging-pipe", "--user-data-dir=" + tmpdir + "/profile",
                "--window-size=%d,%d" % (width, height), "about:blank"]
        try:
            proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                    preexec_fn=child_fds, pass_fds=(3, 4))
        except OSError as e:
            raise Unavailable("%s does not start: %s" % (path, e))
        finally:
            os.close(cmd_r)
            os.close(ev_w)
        b = cls(proc, cmd_w, ev_r, log)
        try:
            b.call("Browser.getVersion")
        except ProtocolError as e:
            b.close()
            raise Unavailable("%s did not answer on its debugging pipe (%s); its output: %s"
                              % (path, e, b.log_tail()))
        return b

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def log_tail(self):
        try:
            with open(self.log.name, "rb") as f:
                return f.read()[-600:].decode("utf-8", "replace").strip()
        except OSError:
            return ""

    def close(self):
        if self.proc.poll() is None:
            try:
                self.send("Browser.close")
                self.proc.wait(timeout=10)
            except (ProtocolError, OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for fd in (self.out, self.inp):
            try:
                os.close(fd)
            except OSError:
                pass
        self.log.close()

    # ------------------------------------------------------------ messages

    def send(self, method, session=None, **params):
        """Send a command; returns its id (the reply comes later)."""
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self.out, data):]
        except OSError as e:
            raise ProtocolError("cannot write to the browser: %s" % e)
        return self.next_id

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.inp], [], [], left)[0]:
                raise ProtocolError("no message from the browser within %.0f s" % TIMEOUT)
            chunk = os.read(self.inp, 1 << 16)
            if not chunk:
                raise ProtocolError("the browser closed its debugging pipe")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        msg = json.loads(raw)
        if "id" in msg:
            self.replies[msg["id"]] = msg
        else:
            self.events.append(msg)

    def reply(self, cid):
        """The result of command cid, waiting for it."""
        deadline = time.monotonic() + TIMEOUT
        while cid not in self.replies:
            self._read(deadline)
        msg = self.replies.pop(cid)
        if "error" in msg:
            raise ProtocolError("command %d: %s" % (cid, msg["error"].get("message")))
        return msg.get("result", {})

    def event(self, method):
        """The next event named method (earlier ones of other names stay)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            for i, ev in enumerate(self.events):
                if ev.get("method") == method:
                    return self.events.pop(i).get("params", {})
            self._read(deadline)

    def call(self, method, session=None, **params):
        return self.reply(self.send(method, session, **params))

    def open(self, url):
        """A new page (tab) at url, loaded, with a session to drive it."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session)
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call("Page.navigate", url=url)
        deadline = time.monotonic() + TIMEOUT
        while page.eval("document.URL + ' ' + document.readyState") != url + " complete":
            if time.monotonic() > deadline:
                raise ProtocolError("%s did not load within %.0f s" % (url, TIMEOUT))
            time.sleep(0.05)
        return page


class Page:
    def __init__(self, browser, session):
        self.browser, self.session = browser, session

    def send(self, method, **params):
        return self.browser.send(method, self.session, **params)

    def call(self, method, **params):
        return self.browser.call(method, self.session, **params)

    def eval(self, expression):
        """The value of a JavaScript expression (JSON-able), or raise."""
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in r:
            raise ProtocolError("%s: %s" % (expression[:60], r["exceptionDetails"].get("exception", {})
                                            .get("description", r["exceptionDetails"].get("text"))))
        return r["result"].get("value")

    def mouse(self, kind, x, y, clicks=0):
        args = dict(type=kind, x=x, y=y)
        if kind in ("mousePressed", "mouseReleased"):
            args.update(button="left", clickCount=clicks or 1)
        self.call("Input.dispatchMouseEvent", **args)

    def hover(self, x, y):
        self.mouse("mouseMoved", x, y)

    def click(self, x, y):
        self.hover(x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)

    def key(self, key, code, keycode, modifiers=0, answer=None):
        """Press and release a key (modifiers: 2 Ctrl).  With answer, the key
        opens a window.prompt(), answered so; returns the dialog's
        parameters (message, defaultPrompt)."""
        down = self.send("Input.dispatchKeyEvent", type="rawKeyDown", key=key, code=code,
                         windowsVirtualKeyCode=keycode, modifiers=modifiers)
        message = self._answer_prompt(down, answer) if answer is not None else self.browser.reply(down)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=keycode,
                  modifiers=modifiers)
        return message

    def click_with_prompt(self, x, y, answer):
        """Click something that opens a window.prompt(); answer it.  Returns
        the dialog's parameters (message, defaultPrompt)."""
        self.hover(x, y)
        self.mouse("mousePressed", x, y)
        up = self.send("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y, button="left", clickCount=1)
        return self._answer_prompt(up, answer)

    def _answer_prompt(self, pending, answer):
        """The command `pending` opened a dialog: its reply comes only once
        the dialog is closed, so it is collected last."""
        dialog = self.browser.event("Page.javascriptDialogOpening")
        self.call("Page.handleJavaScriptDialog", accept=True, promptText=answer)
        self.browser.reply(pending)
        return dialog
