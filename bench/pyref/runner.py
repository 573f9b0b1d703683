"""kesoku's ToolRunner as a Python program would build it, used as a
performance peer only.

A registry filled by a decorator that reads each function's Google-style
docstring and signature; a ToolRunner that takes every request through the
five steps (parse, interrupt check, inspect.signature validation,
await a coroutine or asyncio.to_thread a plain function, pack a Message);
a main that reads JSON Lines requests and writes one record per request, in
request order, with up to -j calls at once.

usage: python3 runner.py REQUESTS.jsonl [-j N] > records.jsonl
"""

import asyncio
import collections
import inspect
import json
import signal
import sys
import time
import typing
import uuid

_JSON_TYPES = {int: "integer", float: "number", str: "string", bool: "boolean"}


def _parse_docstring(doc):
    """Splits a Google-style docstring into its summary and Args entries."""
    summary, args, section = [], {}, None
    for line in inspect.cleandoc(doc or "").splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Returns:", "Raises:"):
            section = stripped
        elif section == "Args:" and ":" in stripped:
            name, _, text = stripped.partition(":")
            args[name.strip()] = text.strip()
        elif section is None and stripped:
            summary.append(stripped)
    return " ".join(summary), args


class Registry:
    """The central registry, which the decorator fills."""

    def __init__(self):
        self.tools = {}
        self.schemas = {}

    def register(self, fn):
        summary, docs = _parse_docstring(fn.__doc__)
        hints = typing.get_type_hints(fn)
        properties, required = {}, []
        for name, param in inspect.signature(fn).parameters.items():
            if name == "context":  # injected, never in the schema
                continue
            properties[name] = {"type": _JSON_TYPES.get(hints.get(name), "string"), "description": docs.get(name, "")}
            if param.default is inspect.Parameter.empty:
                required.append(name)
        self.schemas[fn.__name__] = {
            "name": fn.__name__,
            "description": summary,
            "parameters": {"type": "object", "properties": properties, "required": required},
        }
        self.tools[fn.__name__] = fn
        return fn


default_registry = Registry()


class ToolContext:
    def __init__(self, gateway, session_id, original_msg_id):
        self.gateway, self.session_id, self.original_msg_id = gateway, session_id, original_msg_id


@default_registry.register
async def calculate_sum(a: int, b: int) -> int:
    """Returns the sum of two integers.

    Args:
        a: The first integer.
        b: The second integer.
    """
    return a + b


@default_registry.register
def sleep(seconds: float) -> float:
    """Sleeps, then returns how long it slept.

    Args:
        seconds: How long to sleep.
    """
    time.sleep(seconds)
    return seconds


class ToolRunner:
    def __init__(self, registry, session_id, is_interrupted=None, gateway=None):
        self.registry = registry
        self.session_id = session_id
        self.is_interrupted = is_interrupted
        self.gateway = gateway

    def _message(self, request, started, **fields):
        message = {
            "id": str(uuid.uuid4()),
            "session_id": self.session_id,
            "parent_id": request.get("id"),
            "role": "tool",
            "type": "tool_result",
            "status": "responded",
            "name": request.get("name"),
        }
        message.update(fields)
        message["created_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        message["duration_ms"] = int((time.monotonic() - started) * 1000)
        return message

    def _error(self, request, started, kind, text, status="responded"):
        return self._message(request, started, status=status, is_error=True, error={"kind": kind, "message": text})

    async def run(self, request):
        started = time.monotonic()
        # 1. Parse the request.
        name, args = request.get("name"), request.get("args") or {}
        if not isinstance(name, str) or not isinstance(args, dict):
            return self._error(request, started, "invalid_request", "a request has a name and an object of args")
        # 2. The interrupt check.
        if self.is_interrupted and self.is_interrupted():
            return self._error(request, started, "aborted", "interrupted before it started", status="aborted")
        # 3. Validation against the signature.
        fn = self.registry.tools.get(name)
        if fn is None:
            return self._error(request, started, "unknown_tool", f"unknown tool {name!r}")
        params = inspect.signature(fn).parameters
        kwargs = dict(args)
        if "context" in params:
            kwargs["context"] = ToolContext(self.gateway, self.session_id, request.get("id"))
        unknown = [k for k in args if k not in params or k == "context"]
        missing = [k for k, p in params.items() if p.default is inspect.Parameter.empty and k not in kwargs]
        if unknown or missing:
            return self._error(request, started, "invalid_args", f"missing {missing}, unknown {unknown}")
        # 4. Execution: coroutines awaited, plain functions on a thread.
        try:
            if inspect.iscoroutinefunction(fn):
                result = await fn(**kwargs)
            else:
                result = await asyncio.to_thread(fn, **kwargs)
        except Exception as e:  # noqa: BLE001 — a tool's failure is a record
            return self._error(request, started, "tool_error", str(e))
        # 5. Packing.
        return self._message(request, started, content=result)


async def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "-j"):
        sys.exit("usage: runner.py REQUESTS.jsonl [-j N]")
    jobs = int(argv[3]) if len(argv) == 4 else 1
    interrupted = False

    def interrupt(*_):
        nonlocal interrupted
        interrupted = True

    signal.signal(signal.SIGINT, interrupt)
    runner = ToolRunner(default_registry, str(uuid.uuid4()), lambda: interrupted)
    slots = asyncio.Semaphore(jobs)

    async def one(request):
        async with slots:
            return await runner.run(request)

    # Calls start as requests are read; records leave in request order. The
    # window bounds how far reading runs ahead of writing.
    window = collections.deque()
    out = sys.stdout
    with open(argv[1]) as requests:
        for line in requests:
            if line.strip():
                window.append(asyncio.ensure_future(one(json.loads(line))))
            while len(window) > max(4 * jobs, 256) or (window and window[0].done()):
                out.write(json.dumps(await window.popleft()) + "\n")
    while window:
        out.write(json.dumps(await window.popleft()) + "\n")
    out.flush()


if __name__ == "__main__":
    asyncio.run(main(sys.argv))
