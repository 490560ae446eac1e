"""EMPA through the doors RL researchers already train at, each an optional extra.

* :mod:`empa_env.integrations.openenv` (``pip install "empa-gym[openenv]"``): EMPA as an OpenEnv
  environment (action, observation and state types, a server started with one command, a client);
* :mod:`empa_env.integrations.trl`: an environment for TRL's ``GRPOTrainer(environment_factory=...)``
  (needs nothing beyond the ``train`` extra);
* :mod:`empa_env.integrations.verifiers` (``pip install "empa-gym[verifiers]"``): a verifiers
  taskset and environment, loaded as ``empa`` (``vf-eval empa ...``).

Every door plays a :class:`~empa_env.integrations.conversation.Conversation`: one episode of a
``gymnasium.make("EMPA-...")`` environment through its public ``reset``/``step``/``info`` (or
their async twins), so a door gives the same messages, rewards and EPM-Index as ``env.step``.
Nothing here imports an optional package until its door is used.
"""
