"""Stock Hugging Face TRL trainers on EMPA data: supervised fine-tuning (``sft``), reward models
(``rm``), TRL's ``GRPOTrainer`` on episodes (``grpo_trl``), the data constructions they read
(``data``), the Echo-N1 reward functions (``rewards``), the tiny offline models and tokenizers
that stand in for a checkpoint (``tiny``, ``tiny_tools``) and a model by name (``models``). Each module imports ``torch``,
``transformers`` and ``trl`` itself, where it needs them."""
