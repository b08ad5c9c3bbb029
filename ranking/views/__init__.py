"""HTML views of judgment campaigns, one module per page group: thin over services and selectors."""
