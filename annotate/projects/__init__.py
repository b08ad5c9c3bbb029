"""Projects in the browser: members and their roles, e-mail invitations, the current project."""
