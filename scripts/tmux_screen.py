# Reading the screen of a program running in a tmux session, for the latency scripts
# (browser_latency.py, hivelore_latency.py).
import subprocess, time


def screen(session):
    """The text now on the session's screen."""
    return subprocess.run(["tmux", "capture-pane", "-t", session, "-p"],
                          capture_output=True, text=True).stdout


def wait_for(session, pred, limit):
    """Reads the screen every 10 ms until pred(text) holds; the time it did (exits
    with the screen after `limit` seconds)."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        if pred(screen(session)):
            return time.perf_counter()
        time.sleep(0.01)
    raise SystemExit(f"timed out; screen:\n{screen(session)}")
