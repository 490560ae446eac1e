"""Test doubles that are part of the product: a scripted OpenAI-compatible server with fault
injection (``scripted_server``) and plain policies written for the environment's tests
(``policies``). Not used by any production role."""
