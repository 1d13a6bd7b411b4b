"""What a browser loads: the chat widget (``/widget.js``), the reader's chat page (``/``, when
``LECTERN_CHAT_PAGE`` is on) and the API reference (``/docs``) with Swagger UI's files served from the
installed ``swagger-ui-bundle`` package, so every page works offline and loads nothing from a CDN."""

from __future__ import annotations

import hashlib
import html
from functools import lru_cache
from importlib import resources
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import FileResponse, HTMLResponse, Response

from lectern import errors
from lectern.settings import Settings

DOCS_ASSETS = "/docs/assets"
SWAGGER_FILES = frozenset({"swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"})
# Paths a browser fetches without a key: a page cannot hold a secret.
OPEN_PATHS = frozenset({"/", "/widget.js", "/docs", "/openapi.json"})
OPEN_PREFIXES = (DOCS_ASSETS + "/",)


@lru_cache(maxsize=4)
def asset(name: str) -> bytes:
    return resources.files("lectern.web").joinpath(name).read_bytes()


def swagger_dir() -> Path:
    import swagger_ui_bundle  # type: ignore[import-untyped]

    return Path(swagger_ui_bundle.swagger_ui_path)


def web_router(settings: Settings) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/widget.js")
    async def widget(request: Request) -> Response:
        body = asset("widget.js")
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        headers = {
            "ETag": etag,
            "Cache-Control": "public, max-age=300",
            # Any site may load the script; what it may call is decided by its key.
            "Access-Control-Allow-Origin": "*",
        }
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="text/javascript; charset=utf-8", headers=headers)

    if settings.chat_page:

        @router.get("/")
        async def chat_page() -> HTMLResponse:
            key = settings.chat_page_key.get_secret_value()
            page = (
                asset("chat.html")
                .decode("utf-8")
                .format(
                    title=html.escape(settings.chat_page_title),
                    widget_url="/widget.js",
                    key_attr=f' key="{html.escape(key)}"' if key else "",
                )
            )
            return HTMLResponse(page, headers={"Cache-Control": "no-cache"})

    @router.get("/docs")
    async def api_reference() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="Lectern API reference",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
        )

    @router.get(DOCS_ASSETS + "/{name}")
    async def docs_asset(name: str) -> FileResponse:
        if name not in SWAGGER_FILES:
            raise errors.NotFound(f"No such file: {name}")
        return FileResponse(swagger_dir() / name, headers={"Cache-Control": "public, max-age=86400"})

    return router


def is_open(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)
