"""Where the bot's time goes in a py-spy file of the table bench (``SKYBO_BENCH_PYSPY``): each sample of
the event loop's thread in one category (docs/performance.md). ``python -m bench.table --breakdown
FILE`` prints the shares.
"""

from __future__ import annotations

# Where a sample of the bot's event loop thread goes (docs/performance.md): the first rule of OWNERS that
# matches any frame of the stack, else the deepest frame that matches a rule of LAYERS (the first rule
# that matches that frame). A rule: (category, part of the file, part of the function or "").
OWNERS: tuple[tuple[str, str, str], ...] = (
    ("bench harness", "bench/", "_recv"),
    ("bench harness", "bench/", "_LoopMonitor"),
    ("computer players", "/ai.py", ""),  # bot/games/<game>/ai.py and the parts of a level's search
    ("computer players", "/lookahead.py", ""),
    ("computer players", "/hard.py", ""),
    ("computer players", "/reading.py", ""),
    ("computer players", "bot/service/", "computer_move"),
    ("decode", "discord/gateway.py", ""),
    ("render picture", "bot/", "_picture"),
)
LAYERS: tuple[tuple[str, str, str], ...] = (
    ("View construction", "", "urandom"),
    ("View construction", "discord/ui/", "__init__"),
    ("View construction", "discord/ui/", "add_item"),
    ("View construction", "discord/ui/", "_init_children"),
    ("encode", "discord/ui/", "to_components"),
    ("encode", "json/encoder", ""),
    ("encode", "aiohttp/formdata", ""),
    ("encode", "aiohttp/multipart", ""),
    ("encode", "aiohttp/payload", ""),
    ("encode", "discord/file.py", ""),
    ("encode", "", "to_dict"),
    ("encode", "discord/utils.py", "_to_json"),
    ("encode", "discord/http.py", "handle_message_parameters"),
    ("encode", "discord/http.py", "MultipartParameters"),
    ("decode", "json/decoder", ""),
    ("decode", "aiohttp/_websocket", ""),
    ("decode", "aiohttp/http_websocket", ""),
    ("decode", "discord/utils.py", ""),
    ("decode", "discord/state.py", ""),
    ("decode", "discord/message.py", "__init__"),
    ("decode", "discord/message.py", "_handle"),
    ("decode", "discord/components.py", ""),
    ("decode", "discord/interactions.py", "__init__"),
    ("decode", "discord/interactions.py", "_from_data"),
    ("decode", "discord/user.py", ""),
    ("decode", "discord/member.py", ""),
    ("send", "aiohttp/", ""),
    ("send", "discord/http.py", ""),
    ("send", "discord/webhook/", ""),
    ("send", "asyncio/selector_events.py", "write"),
    ("send", "asyncio/selector_events.py", "_sock_connect"),
    ("send", "discord/interactions.py", ""),
    ("send", "discord/message.py", ""),
    ("commit", "bot/storage/", ""),
    ("commit", "aiosqlite/", ""),
    ("commit", "bot/service/", "_commit"),
    ("timers", "", "timer"),
    ("engine apply", "/engine.py", "apply"),  # bot/games/<game>/engine.py
    ("engine: game views", "/engine.py", ""),
    ("render picture", "PIL/", ""),
    ("render picture", "/image.py", ""),  # bot/games/<game>/image.py and cards.py
    ("render picture", "/cards.py", ""),
    ("render picture", "bot/render/pictures", ""),
    ("render picture", "bot/render/images", ""),
    ("render text", "bot/ui/", ""),
    ("render text", "bot/games/", ""),  # panels, table texts, rules
    ("render text", "bot/render/", ""),
    ("render text", "bot/i18n/", ""),
    ("discord.py other", "discord/", ""),
    ("service (other)", "bot/", ""),
    ("asyncio loop", "asyncio/", ""),
)


def _category(frames: list[str]) -> str:
    """The category of one sample; ``frames``: "function (file:line)", outermost first."""
    parsed = [(f.rsplit(" (", 1)[0], f.rsplit(" (", 1)[-1]) for f in frames]
    for category, where, function in OWNERS:
        if any(where in file and function in name for name, file in parsed):
            return category
    for name, file in reversed(parsed):
        for category, where, function in LAYERS:
            if where in file and function in name:
                return category
    return "other"


def breakdown(path: str) -> list[str]:
    """Shares of a py-spy file (``SKYBO_BENCH_PYSPY``: raw, one line per stack and thread) by category:
    the event loop's thread (MainThread) without its idle samples (waiting in select), then the other
    threads (pictures, the SQLite connection) in samples of the same rate."""
    loop: dict[str, int] = {}
    threads: dict[str, int] = {}
    idle = 0
    with open(path) as lines:
        for line in lines:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            thread, *frames = stack.split(";")
            n = int(count)
            if "MainThread" not in thread:
                name = thread.split(": ", 1)[-1].rstrip("_0123456789")
                threads[name] = threads.get(name, 0) + n
            elif frames and frames[-1].startswith(("EpollSelector.select", "BaseSelector.select")):
                idle += n
            else:
                category = _category(frames)
                loop[category] = loop.get(category, 0) + n
    busy = sum(loop.values())
    out = [f"   event loop thread: {busy} busy samples ({idle} idle in select not counted)"]
    for category, n in sorted(loop.items(), key=lambda kv: -kv[1]):
        out.append(f"   {category:<24} {n / max(1, busy):6.1%}  ({n})")
    out.append("   other threads (samples at the same rate, and as a share of the loop's busy samples):")
    for name, n in sorted(threads.items(), key=lambda kv: -kv[1]):
        out.append(f"   {name:<50} {n:6d}  ({n / max(1, busy):.0%})")
    return out
