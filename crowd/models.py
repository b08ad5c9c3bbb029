"""Worker identities per platform, invite links, platform studies/HITs and their audit log."""
