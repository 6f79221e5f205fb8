"""The desktop app (PySide6). Qt is imported only inside this package."""
