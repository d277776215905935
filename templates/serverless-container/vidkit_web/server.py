"""The ASGI app: the preview page, POST /api/render (returns {call_id} at once), the polling route
and the renders on the volume."""

import uuid
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from . import settings
from .backends import Backend, Failed, Finished, Running, TimedOut
from .contract import RenderRequestError, load_contract, parse_render_request
from .limits import QueueFull
from .render_job import RENDER_NAME


async def _read_capped(request: Request, limit: int) -> bytes:
    """The body, stopping one byte past the limit so an oversized request is never held whole."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            break
    return bytes(body)


def create_app(backend: Backend, compositions_dir: Path = settings.COMPOSITIONS_DIR, static_dir: Path = settings.STATIC_DIR) -> Starlette:
    # Read once: a missing contract stops the app at its start, naming the command that writes it.
    contract = load_contract(compositions_dir, settings.PREVIEW_COMPOSITION)

    async def preview(_request: Request) -> Response:
        page = (static_dir / "index.html").read_text(encoding="utf-8")
        return HTMLResponse(page.replace("{{COMPOSITION_SRC}}", f"compositions/{settings.PREVIEW_COMPOSITION}/index.html"))

    async def start_render(request: Request) -> Response:
        try:
            variables = parse_render_request(await _read_capped(request, contract.max_bytes), contract)
        except RenderRequestError as err:
            return JSONResponse({"error": str(err)}, status_code=400)
        try:
            call_id = backend.spawn(variables, f"{uuid.uuid4()}.mp4")
        except QueueFull as err:
            return JSONResponse({"error": str(err)}, status_code=429, headers={"Retry-After": str(err.retry_after)})
        return JSONResponse({"call_id": call_id, "url": str(request.url_for("poll_render", call_id=call_id))}, status_code=202)

    async def poll_render(request: Request) -> Response:
        call_id = request.path_params["call_id"]
        status = backend.status(call_id)
        if isinstance(status, Running):
            return JSONResponse({"call_id": call_id, "status": "running"}, status_code=202)
        if isinstance(status, Failed):
            return JSONResponse({"call_id": call_id, "error": status.error}, status_code=500)
        if isinstance(status, TimedOut):
            return JSONResponse({"call_id": call_id, "error": status.error}, status_code=504)
        if isinstance(status, Finished):
            return FileResponse(backend.render_path(status.name), media_type="video/mp4", headers={"x-render-url": f"/renders/{status.name}"})
        return JSONResponse({"error": f"no render with id {call_id}"}, status_code=404)

    async def stored_render(request: Request) -> Response:
        name = request.path_params["name"]
        path = backend.render_path(name) if RENDER_NAME.match(name) else None
        if path is None or not path.is_file():
            return JSONResponse({"error": f"no render named {name}"}, status_code=404)
        return FileResponse(path, media_type="video/mp4")

    async def not_found(request: Request, _exc: Exception) -> Response:
        return JSONResponse({"error": f"not found: {request.url.path}"}, status_code=404)

    return Starlette(
        exception_handlers={404: not_found},
        routes=[
            Route("/", preview),
            Route("/api/render", start_render, methods=["POST"]),
            Route("/api/render/{call_id}", poll_render, methods=["GET"], name="poll_render"),
            Route("/renders/{name}", stored_render, methods=["GET"]),
            Route("/vidkit-player.js", lambda _r: FileResponse(static_dir / "vidkit-player.js", media_type="text/javascript")),
            Mount("/compositions", StaticFiles(directory=compositions_dir)),
            # The bundled fonts the player's page runtime links (installed beside the player).
            Mount("/__vidkit-fonts", StaticFiles(directory=static_dir / "__vidkit-fonts", check_dir=False)),
        ]
    )
