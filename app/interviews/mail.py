"""Sending email through the SMTP server named by SMTP_URL (invites and reminders).

smtp://host:port (plain, e.g. a local relay), smtp+starttls://host:587 (upgraded) or smtps://host:465
(TLS from the start), with optional user:password@ (percent-encoded). A failure is a MailError with a
message fit for the interviewer; the caller still shows the link to copy.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from email.message import EmailMessage
from urllib.parse import unquote, urlsplit

from app.core.errors import DojoError
from app.core.settings import get_settings

log = logging.getLogger(__name__)

TIMEOUT_SECONDS = 15
DEFAULT_PORTS = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}


class MailError(DojoError):
    status_code = 502


def enabled() -> bool:
    return bool(get_settings().smtp_url.strip())


def compose(*, to: str, subject: str, body: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = get_settings().smtp_from
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    return message


def send(message: EmailMessage) -> None:
    """Deliver one message; MailError when SMTP is not configured or the server refuses it."""
    url = urlsplit(get_settings().smtp_url.strip())
    if url.scheme not in DEFAULT_PORTS or not url.hostname:
        raise MailError("Email is not configured: set SMTP_URL to smtp://, smtp+starttls:// or smtps://host:port.")
    port = url.port or DEFAULT_PORTS[url.scheme]
    try:
        client: smtplib.SMTP
        if url.scheme == "smtps":
            client = smtplib.SMTP_SSL(url.hostname, port, timeout=TIMEOUT_SECONDS, context=ssl.create_default_context())
        else:
            client = smtplib.SMTP(url.hostname, port, timeout=TIMEOUT_SECONDS)
        with client:
            if url.scheme == "smtp+starttls":
                client.starttls(context=ssl.create_default_context())
            if url.username:
                client.login(unquote(url.username), unquote(url.password or ""))
            client.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        log.warning("email to %s not sent: %s", message["To"], exc.__class__.__name__)
        raise MailError(f"The email to {message['To']} could not be sent ({exc.__class__.__name__}).") from exc
