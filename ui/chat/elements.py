"""What the chat's data layer does with a message's elements (the consensus chart, a side panel the user opens,
export files): nothing. They are not stored.

Chainlit's SQLAlchemy layer stores an element only through a blob storage client (S3, GCS, Azure), which a local
install has none of; without one it logs "create_element error. No blob_storage_client is configured!" for each
element and stores nothing. Every element the chat sends is drawn from the check, which the graph's checkpoint keeps:
a reopened thread gets its answers' charts and buttons (those that open each source and the original answer in the
side panel), and its replies' and passage tables' buttons, back from there and from the messages' metadata
(ui.chat.resume). What a reopened thread does not get back: the files of an Export reply (Export again gives them);
docs/weaknesses.md says so."""

from __future__ import annotations

import logging
from typing import Any

from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.logger import logger as chainlit_logger

NOT_STORED = "storage client is not initialized and elements will not be persisted"


class _NotStoredAtStart(logging.Filter):
    """Drops Chainlit's start-up warning that elements will not be persisted: by design, as the module says."""

    def filter(self, record: logging.LogRecord) -> bool:
        return NOT_STORED not in record.getMessage()


chainlit_logger.addFilter(_NotStoredAtStart())


class ElementsUnstoredDataLayer(SQLAlchemyDataLayer):
    """Chainlit's SQLAlchemy data layer that stores no element, and says nothing of it for each one."""

    async def create_element(self, element: Any) -> None:
        return None
