"""The request contract of POST /api/render (README.md), the same as the JavaScript templates':
the body is empty or {"variables": {...}}, at most 64 KiB, and every variable must be declared by
the composition's data-composition-variables with a matching type."""

import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

MAX_RENDER_REQUEST_BYTES = 64 * 1024
VARIABLE_TYPES = ("string", "number", "color", "boolean", "enum")


class RenderRequestError(ValueError):
    """A request the caller must fix: answered with a 400 and {"error": message}."""


class _RootAttributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.variables: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.variables = dict(attrs).get("data-composition-variables")


def load_declarations(project_dir: Path) -> dict[str, dict]:
    """The composition's declarations by id; a declaration of another type is dropped, as in vidkit."""
    parser = _RootAttributes()
    parser.feed((project_dir / "index.html").read_text(encoding="utf-8"))
    declared = json.loads(parser.variables) if parser.variables and parser.variables.strip() else []
    return {d["id"]: d for d in declared if isinstance(d, dict) and d.get("type") in VARIABLE_TYPES}


_HEX_COLOR = re.compile(r"^#(?:[0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$", re.I)
_FUNCTIONAL_COLOR = re.compile(r"^(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\([^()]*\)$", re.I)
_NAMED_COLOR = re.compile(r"^[a-z]+$", re.I)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _enum_values(decl: dict) -> list:
    return [o["value"] if isinstance(o, dict) else o for o in decl.get("options", [])]


def _same(a: object, b: object) -> bool:
    # JSON equality: true is not 1.
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _fits(decl: dict, value: object) -> bool:
    kind = decl["type"]
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return _is_number(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "color":
        return isinstance(value, str) and any(p.match(value.strip()) for p in (_HEX_COLOR, _FUNCTIONAL_COLOR, _NAMED_COLOR))
    return any(_same(value, option) for option in _enum_values(decl))


def _describe(value: object) -> str:
    shown = json.dumps(value)
    kind = {bool: "boolean", str: "string", list: "array", dict: "object", type(None): "null"}.get(type(value), "number")
    return f"{kind} {shown}" if len(shown) <= 40 and kind != "null" else kind


def _mismatch(decl: dict, value: object) -> str | None:
    if _fits(decl, value):
        return None
    expected = decl["type"] if decl["type"] != "enum" else "one of " + ", ".join(json.dumps(v) for v in _enum_values(decl))
    return f'variable "{decl["id"]}": expected {expected}, got {_describe(value)}'


def parse_render_request(body: bytes, declarations: dict[str, dict]) -> dict:
    """Validates a request body against the declarations; returns the variable overrides."""
    if len(body) > MAX_RENDER_REQUEST_BYTES:
        raise RenderRequestError(f"request body is too large: the limit is {MAX_RENDER_REQUEST_BYTES} bytes")
    text = body.decode("utf-8", errors="replace")
    if not text.strip():
        return {}
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as err:
        raise RenderRequestError(f"request body is not JSON: {err}") from None
    if not isinstance(parsed, dict):
        raise RenderRequestError('request body must be a JSON object: {"variables": {...}}')
    unknown = [k for k in parsed if k != "variables"]
    if unknown:
        raise RenderRequestError(f'unknown field {", ".join(json.dumps(k) for k in unknown)}; the body is {{"variables": {{...}}}}')
    variables = parsed.get("variables", {})
    if not isinstance(variables, dict):
        raise RenderRequestError('"variables" must be a JSON object of variable values')
    issues = []
    for key, value in variables.items():
        decl = declarations.get(key)
        issue = f'variable "{key}" is not declared by the composition' if decl is None else _mismatch(decl, value)
        if issue:
            issues.append(issue)
    if issues:
        raise RenderRequestError("; ".join(issues))
    return variables
