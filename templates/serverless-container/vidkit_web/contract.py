"""The request contract of POST /api/render (../README.md), read from the document vidkit generates
for the composition, never kept here by hand: `node <vidkit>/dist/template-assets.js` writes
compositions/<name>.request.schema.json (the JSON Schema of the body, whose `variables` is the
composition's variables schema, plus the size limit, the messages and each variable's expected
type under `x-vidkit-` keywords). Validated against it, a request is answered exactly as the
JavaScript templates answer it (vidkit/web-template)."""

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path


class RenderRequestError(ValueError):
    """A request the caller must fix: answered with a 400 and {"error": message}."""


def request_schema_file(compositions_dir: Path, name: str) -> Path:
    return compositions_dir / f"{name}.request.schema.json"


@dataclass(frozen=True)
class RequestContract:
    max_bytes: int
    max_depth: int
    messages: dict[str, str]
    # The variables' schemas by id: JSON Schema `type`, `pattern` or `enum`, and x-vidkit-expected.
    variables: dict[str, dict]

    def message(self, name: str, **values: str) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), self.messages[name])


def load_contract(compositions_dir: Path, name: str) -> RequestContract:
    """The contract of compositions/<name>/; a missing one names the command that writes it."""
    file = request_schema_file(compositions_dir, name)
    try:
        schema = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{file} is missing: write it with `node <vidkit>/dist/template-assets.js static/vidkit-player.js compositions` "
            "(the deploy script and scripts/setup.sh run it)"
        ) from None
    return RequestContract(
        max_bytes=schema["x-vidkit-max-bytes"],
        max_depth=schema["x-vidkit-max-depth"],
        messages=schema["x-vidkit-messages"],
        variables=schema["properties"]["variables"]["properties"],
    )


def _reject_constant(name: str) -> object:
    # JSON has no NaN or Infinity (JavaScript's parser refuses them too).
    raise ValueError(f"{name} is not valid JSON")


def _parse_int(digits: str) -> int | float:
    # JavaScript reads every number as a double: more digits than Python converts to an int
    # (sys.get_int_max_str_digits, 0 for no limit) are read as one too, past its range infinite, as there.
    limit = sys.get_int_max_str_digits()
    return int(digits) if limit == 0 or len(digits.lstrip("-")) <= limit else float(digits)


def _json_type(value: object) -> str:
    """JavaScript's typeof of a parsed JSON value."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object", type(None): "null"}[type(value)]


def _json_text(value: object) -> str:
    """JSON.stringify's text: compact, non-ASCII kept, a whole float without its .0, Infinity as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return "null"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        value = int(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _describe(value: object) -> str:
    kind = _json_type(value)
    if kind in ("null", "array"):
        return kind
    try:
        shown = _json_text(value)
    except RecursionError:
        # Nested deeper than Python's stack: far over the 40 characters that are ever shown.
        return kind
    return f"{kind} {shown}" if len(shown) <= 40 else kind


def _same(a: object, b: object) -> bool:
    # JSON equality: true is not 1.
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _fits(schema: dict, value: object) -> bool:
    """The keywords vidkit's variables schema uses: type (string, number, boolean), pattern, enum."""
    kind = schema.get("type")
    if kind == "string" and not isinstance(value, str):
        return False
    if kind == "number" and not (_json_type(value) == "number" and math.isfinite(value)):
        return False
    if kind == "boolean" and not isinstance(value, bool):
        return False
    if "pattern" in schema and not re.search(schema["pattern"], value):
        return False
    return "enum" not in schema or any(_same(value, option) for option in schema["enum"])


def _depth_over(text: str, limit: int) -> bool:
    """Whether JSON text nests arrays and objects deeper than `limit` (strings skipped)."""
    depth = 0
    in_string = False
    escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > limit:
                return True
        elif c in "]}":
            depth -= 1
    return False


def parse_render_request(body: bytes, contract: RequestContract) -> dict:
    """Validates a request body against the contract; returns the variable overrides."""
    if len(body) > contract.max_bytes:
        raise RenderRequestError(contract.message("tooLarge"))
    # As the JavaScript templates decode it: a BOM dropped, bytes that are not UTF-8 as U+FFFD.
    text = body.decode("utf-8-sig", errors="replace")
    if not text.strip():
        return {}
    # Before parsing, as the JavaScript templates check it (Python's parser stops near 1,000 levels).
    if _depth_over(text, contract.max_depth):
        raise RenderRequestError(contract.message("tooDeep"))
    try:
        parsed = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except ValueError as err:
        raise RenderRequestError(contract.message("notJson", reason=str(err))) from None
    if not isinstance(parsed, dict):
        raise RenderRequestError(contract.message("notObject"))
    unknown = [k for k in parsed if k != "variables"]
    if unknown:
        raise RenderRequestError(contract.message("unknownField", fields=", ".join(_json_text(k) for k in unknown)))
    variables = parsed.get("variables", {})
    if not isinstance(variables, dict):
        raise RenderRequestError(contract.message("variablesNotObject"))
    issues = []
    for key, value in variables.items():
        schema = contract.variables.get(key)
        if schema is None:
            issues.append(contract.message("undeclared", id=key))
        elif not _fits(schema, value):
            issues.append(contract.message("mismatch", id=key, expected=schema["x-vidkit-expected"], got=_describe(value)))
    if issues:
        raise RenderRequestError(contract.messages["separator"].join(issues))
    return variables
