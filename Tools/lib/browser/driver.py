#!/usr/bin/env python3
"""Drive one headless browser (Debian's chromium or firefox-esr) for tests.

Chromium is driven through the DevTools protocol (--remote-debugging-port,
over the `websockets` package), Firefox through Marionette's own JSON
protocol over TCP. Both look the same to the caller: JSON commands on stdin,
one per line, JSON events on stdout, one per line:

  {"cmd":"open","url":U}                         -> {"event":"opened","url":U}
  {"cmd":"eval","js":EXPR}                       -> {"event":"result","value":V}
  {"cmd":"wait","js":EXPR,"timeout":S}           -> {"event":"result","value":V}  (first truthy value)
                                                  or {"event":"timeout","last":V}
  {"cmd":"screenshot","path":P,"width":W,"height":H}
        -> {"event":"screenshot","path":P,"width":w,"height":h,"colors":N,"ink":F}
           (colors: distinct colours; ink: share of pixels unlike the most common one)
  {"cmd":"quit"}                                 -> exits 0

It starts with {"event":"ready","browser":...,"version":...}. An error in a
command is {"event":"error","message":...}; the driver keeps going. The
browser dies with the driver (PR_SET_PDEATHSIG), whatever ends it.

  driver.py chromium|firefox [--mdns] [--netlog PATH] [--ca PEM]

--mdns keeps the browser's default of hiding host addresses behind mDNS
names; without it they are shown (the tests' namespaces have no resolver).
--netlog PATH records the browser's own log of every request it makes:
Chromium's net log with socket bytes (--log-net-log), Firefox's HTTP and
WebSocket logging (MOZ_LOG, in PATH and PATH.child-N files). The browser is
then closed gracefully on quit, so the log is complete once the driver exits.
--ca PEM makes Firefox trust that CA (in its profile's NSS database, with
certutil from libnss3-tools): Marionette's acceptInsecureCerts covers pages
and WebSockets but not WebRTC's TURN over TLS. Chromium's
--ignore-certificate-errors covers both, so Chromium ignores --ca.
"""
import asyncio
import base64
import ctypes
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import zlib

PR_SET_PDEATHSIG = 1


def die_with_parent():
    os.setsid()
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


# --- PNG (8-bit RGB/RGBA, non-interlaced: what both browsers write) --------

def png_pixels(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, ctype = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "unsupported PNG"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(height):
        f = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 0xFF
            elif f == 2:
                line[x] = (line[x] + b) & 0xFF
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def png_summary(data):
    width, height, bpp, rows = png_pixels(data)
    counts = {}
    for row in rows:
        for x in range(0, len(row), bpp):
            px = row[x:x + 3]
            counts[px] = counts.get(px, 0) + 1
    total = width * height
    ink = 1 - max(counts.values()) / total if total else 0
    return width, height, len(counts), ink


# --- Chromium: DevTools protocol -------------------------------------------

class Chromium:
    name = "chromium"

    def __init__(self, mdns, netlog=None):
        self.mdns = mdns
        self.netlog = netlog
        self.next_id = 0
        self.pending = {}
        self.events = asyncio.Queue()

    async def start(self):
        import websockets
        self.profile = tempfile.mkdtemp(prefix="wb-chromium-")
        args = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-background-networking", "--disable-extensions",
                "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
                f"--user-data-dir={self.profile}", "--window-size=1280,900",
                # Tests serve HTTPS with throwaway certificates (Firefox: acceptInsecureCerts).
                "--ignore-certificate-errors"]
        if not self.mdns:
            args.append("--disable-features=WebRtcHideLocalIpsWithMdns")
        if self.netlog:
            args += [f"--log-net-log={self.netlog}", "--net-log-capture-mode=Everything"]
        args.append("about:blank")
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, preexec_fn=die_with_parent)
        loop = asyncio.get_running_loop()
        url = None
        while url is None:
            line = await loop.run_in_executor(None, self.proc.stderr.readline)
            if not line:
                raise RuntimeError("chromium exited before DevTools listened")
            text = line.decode(errors="replace").strip()
            if "DevTools listening on " in text:
                url = text.split("DevTools listening on ", 1)[1]
        # Keep draining stderr so the browser never blocks on a full pipe.
        loop.run_in_executor(None, lambda: [None for _ in iter(self.proc.stderr.readline, b"")])
        self.ws = await websockets.connect(url, max_size=None, ping_interval=None)
        self.reader = asyncio.create_task(self.read())
        version = await self.call("Browser.getVersion")
        targets = await self.call("Target.getTargets")
        page = next(t for t in targets["targetInfos"] if t["type"] == "page")
        attached = await self.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})
        self.session = attached["sessionId"]
        await self.call("Page.enable", session=True)
        await self.call("Runtime.enable", session=True)
        return version["product"]

    async def read(self):
        async for message in self.ws:
            m = json.loads(message)
            if "id" in m and m["id"] in self.pending:
                self.pending.pop(m["id"]).set_result(m)
            elif m.get("method") == "Runtime.consoleAPICalled" or m.get("method") == "Runtime.exceptionThrown":
                sys.stderr.write("console: " + json.dumps(m.get("params"))[:500] + "\n")
            else:
                await self.events.put(m)

    async def call(self, method, params=None, session=False):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        await self.ws.send(json.dumps(msg))
        reply = await fut
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return reply["result"]

    async def open(self, url):
        while not self.events.empty():
            self.events.get_nowait()
        await self.call("Page.navigate", {"url": url}, session=True)
        while True:
            m = await self.events.get()
            if m.get("method") == "Page.loadEventFired":
                return

    async def eval(self, js):
        r = await self.call("Runtime.evaluate", {"expression": js, "returnByValue": True, "awaitPromise": True}, session=True)
        if "exceptionDetails" in r:
            raise RuntimeError("script: " + json.dumps(r["exceptionDetails"].get("exception", {}).get("description", r["exceptionDetails"].get("text"))))
        return r["result"].get("value")

    async def downloads(self, path):
        await self.call("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": path})

    async def screenshot(self, width, height):
        await self.call("Emulation.setDeviceMetricsOverride",
                        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, session=True)
        shot = await self.call("Page.captureScreenshot", {"format": "png"}, session=True)
        return base64.b64decode(shot["data"])

    async def close(self):
        if self.netlog:   # the net log is finished when the browser closes itself
            try:
                await asyncio.wait_for(self.call("Browser.close"), 10)
                await asyncio.get_running_loop().run_in_executor(None, lambda: self.proc.wait(30))
            except Exception:
                pass
        self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


# --- Firefox: Marionette ------------------------------------------------

class Firefox:
    name = "firefox"

    def __init__(self, mdns, netlog=None, ca=None):
        self.mdns = mdns
        self.netlog = netlog
        self.ca = ca
        self.next_id = 0

    async def start(self):
        self.profile = tempfile.mkdtemp(prefix="wb-firefox-")
        prefs = {
            "marionette.port": 0,
            "media.peerconnection.ice.obfuscate_host_addresses": self.mdns,
            "browser.shell.checkDefaultBrowser": False,
            "browser.startup.homepage_override.mstone": "ignore",
            "datareporting.policy.dataSubmissionEnabled": False,
            "toolkit.telemetry.reportingpolicy.firstRun": False,
            "app.update.disabledForTesting": True,
            "network.captive-portal-service.enabled": False,
            "network.connectivity-service.enabled": False,
            "browser.safebrowsing.update.enabled": False,
            "extensions.update.enabled": False,
            "remote.prefs.recommended": True,
        }
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for k, v in prefs.items():
                f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
        if self.ca:
            db = "sql:" + self.profile
            subprocess.run(["certutil", "-N", "--empty-password", "-d", db], check=True, capture_output=True)
            subprocess.run(["certutil", "-A", "-n", "chatcli test CA", "-t", "C,,", "-i", self.ca, "-d", db],
                           check=True, capture_output=True)
        env = dict(os.environ, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1")
        if self.netlog:
            env.update(MOZ_LOG="timestamp,sync,nsHttp:5,nsWebSocket:5", MOZ_LOG_FILE=self.netlog)
        self.proc = subprocess.Popen(["firefox-esr", "--headless", "--marionette", "--no-remote",
                                      "--profile", self.profile, "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=env, preexec_fn=die_with_parent)
        port_file = os.path.join(self.profile, "MarionetteActivePort")
        port = None
        for _ in range(1200):   # up to 120 s on a busy machine
            if self.proc.poll() is not None:
                raise RuntimeError("firefox exited before Marionette listened")
            try:
                with open(port_file) as f:
                    port = int(f.read().strip())
                break
            except (OSError, ValueError):
                await asyncio.sleep(0.1)
        if port is None:
            raise RuntimeError("Marionette did not start")
        for _ in range(100):
            try:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        await self.receive()   # greeting
        # Marionette takes the capabilities themselves (not W3C's alwaysMatch wrapping).
        session = await self.call("WebDriver:NewSession", {"acceptInsecureCerts": True})
        caps = session.get("capabilities", {})
        return f"Firefox/{caps.get('browserVersion', '?')}"

    async def receive(self):
        length = b""
        while not length.endswith(b":"):
            length += await self.reader.readexactly(1)
        return json.loads(await self.reader.readexactly(int(length[:-1])))

    async def call(self, command, params=None):
        self.next_id += 1
        body = json.dumps([0, self.next_id, command, params or {}]).encode()
        self.writer.write(str(len(body)).encode() + b":" + body)
        await self.writer.drain()
        while True:
            reply = await self.receive()
            if reply[0] == 1 and reply[1] == self.next_id:
                break
        if reply[2]:
            raise RuntimeError(f"{command}: {reply[2].get('error')}: {reply[2].get('message')}")
        return reply[3]

    async def open(self, url):
        await self.call("WebDriver:Navigate", {"url": url})

    async def eval(self, js):
        r = await self.call("WebDriver:ExecuteAsyncScript", {
            "script": "const done = arguments[arguments.length - 1];"
                      f"Promise.resolve().then(() => ({js})).then(v => done(v), e => done({{__error: String(e)}}));",
            "args": [], "scriptTimeout": 60000})
        value = r.get("value")
        if isinstance(value, dict) and "__error" in value:
            raise RuntimeError("script: " + value["__error"])
        return value

    async def screenshot(self, width, height):
        await self.call("WebDriver:SetWindowRect", {"width": width, "height": height})
        r = await self.call("WebDriver:TakeScreenshot", {"full": False, "hash": False})
        return base64.b64decode(r["value"])

    async def close(self):
        try:
            await asyncio.wait_for(self.call("Marionette:Quit", {"flags": ["eForceQuit"]}), 5)
        except Exception:
            pass
        if self.netlog:
            try:
                await asyncio.get_running_loop().run_in_executor(None, lambda: self.proc.wait(30))
            except Exception:
                pass
        self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


async def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else ""
    mdns = "--mdns" in sys.argv[2:]
    netlog = sys.argv[sys.argv.index("--netlog") + 1] if "--netlog" in sys.argv[2:-1] else None
    ca = sys.argv[sys.argv.index("--ca") + 1] if "--ca" in sys.argv[2:-1] else None
    if kind not in ("chromium", "firefox"):
        sys.stderr.write("usage: driver.py chromium|firefox [--mdns] [--netlog PATH] [--ca PEM]\n")
        return 2
    browser = Chromium(mdns, netlog) if kind == "chromium" else Firefox(mdns, netlog, ca)
    try:
        version = await browser.start()
    except Exception as e:
        emit({"event": "error", "message": f"cannot start {kind}: {e}"})
        return 1
    emit({"event": "ready", "browser": kind, "version": version})
    loop = asyncio.get_running_loop()
    try:
        while True:
            line = await loop.run_in_executor(None, sys.stdin.readline)
            if not line:
                break
            try:
                cmd = json.loads(line)
            except ValueError:
                emit({"event": "error", "message": "not JSON"})
                continue
            try:
                op = cmd.get("cmd")
                if op == "quit":
                    break
                if op == "open":
                    await browser.open(cmd["url"])
                    emit({"event": "opened", "url": cmd["url"]})
                elif op == "eval":
                    emit({"event": "result", "value": await browser.eval(cmd["js"])})
                elif op == "wait":
                    deadline = loop.time() + float(cmd.get("timeout", 30))
                    value = None
                    while True:
                        value = await browser.eval(cmd["js"])
                        if value:
                            emit({"event": "result", "value": value})
                            break
                        if loop.time() > deadline:
                            emit({"event": "timeout", "last": value})
                            break
                        await asyncio.sleep(0.1)
                elif op == "downloads" and isinstance(browser, Chromium):
                    await browser.downloads(cmd["path"])
                    emit({"event": "downloads", "path": cmd["path"]})
                elif op == "screenshot":
                    data = await browser.screenshot(int(cmd["width"]), int(cmd["height"]))
                    with open(cmd["path"], "wb") as f:
                        f.write(data)
                    w, h, colors, ink = png_summary(data)
                    emit({"event": "screenshot", "path": cmd["path"], "width": w, "height": h, "colors": colors, "ink": ink})
                else:
                    emit({"event": "error", "message": f"unknown command {op!r}"})
            except Exception as e:
                emit({"event": "error", "message": f"{type(e).__name__}: {e}"})
    finally:
        await browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
