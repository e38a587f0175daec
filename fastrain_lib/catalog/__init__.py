"""Message files, one per area. Each defines MESSAGES = {key: {"bn": ..., "en": ...}}."""
