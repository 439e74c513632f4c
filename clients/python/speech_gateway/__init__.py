"""Python client of the speech & compliance gateway (standard library only).

    from speech_gateway import Client, verify_webhook
    gw = Client("http://localhost:3000", api_key="sk_...")
"""

from ._operations import AUDIO_FORMATS, ERROR_CODES, FRAMEWORKS, OPERATIONS, PROVIDERS, WEBHOOK_EVENT_TYPES, WS_EVENT_TYPES
from .client import BinaryResponse, Client
from .errors import (
    AuthenticationError,
    AuthorizationError,
    ConflictError,
    GatewayError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    ServerError,
)
from .webhooks import WebhookSignatureError, sign_webhook, verify_webhook

__all__ = [
    "Client",
    "BinaryResponse",
    "GatewayError",
    "InvalidRequestError",
    "AuthenticationError",
    "AuthorizationError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "ServerError",
    "WebhookSignatureError",
    "verify_webhook",
    "sign_webhook",
    "OPERATIONS",
    "ERROR_CODES",
    "PROVIDERS",
    "AUDIO_FORMATS",
    "FRAMEWORKS",
    "WS_EVENT_TYPES",
    "WEBHOOK_EVENT_TYPES",
]
