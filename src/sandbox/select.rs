//! Backend selection: `--backend local|docker|auto`. OWNER: docker helper.
