"""Browser assets shipped in the package: the chat widget (``widget.js``) and the reader's chat page."""
