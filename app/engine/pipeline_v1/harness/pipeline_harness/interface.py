"""The pipeline-v1 interface first (CONTRACTS.md section 1c): every function data.py and train.py must
define, and whether a call as the grader makes it binds. Judge side; the agent only answers whether a
name is callable and why a call would not bind."""

# item -> (module, function, positional arguments, keywords) as the grader calls it
CALLS = {
    "collate": ("data", "collate", 2, ()),
    "split": ("data", "split", 3, ()),
    "batches": ("data", "batches", 4, ()),
    "build_optimizer": ("train", "build_optimizer", 3, ("betas",)),
    "get_lr": ("train", "get_lr", 5, ()),
    "train_step": ("train", "train_step", 3, ("grad_clip", "scaler", "amp_dtype")),
    "evaluate": ("train", "evaluate", 2, ()),
    "save_checkpoint": ("train", "save_checkpoint", 4, ()),
    "load_checkpoint": ("train", "load_checkpoint", 3, ()),
}


def interface(session):
    """{"items": {item: {"state": "met" | "unmet", "found": what is there instead}}}."""
    wanted = [(module, name) for module, name, _, _ in CALLS.values()]
    present = [module in session for module, _ in wanted]
    answers = session.call("p_binds", items=[list(CALLS[item][:2]) + [CALLS[item][2], list(CALLS[item][3])]
                                             for item in CALLS])
    items = {}
    for (item, (module, name, _, _)), here, answer in zip(CALLS.items(), present, answers, strict=True):
        if not here:
            items[item] = {"state": "unmet", "found": f"there is no {module}.py"}
        elif not (isinstance(answer, dict) and answer.get("callable")):
            items[item] = {"state": "unmet", "found": f"{module}.py defines no function {name}"}
        elif answer.get("why"):
            items[item] = {"state": "unmet", "found": f"{name} cannot be called that way ({answer['why']})"}
        else:
            items[item] = {"state": "met", "found": None}
    return {"items": items}
