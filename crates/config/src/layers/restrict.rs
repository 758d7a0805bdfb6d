//! What a restricting layer (managed, user) holds every later one to before anything is
//! fetched: one place per registry name, its trust keys, its bundles.

use super::*;

/// Registries, trust keys and bundles: what must hold before anything is fetched.
pub(super) fn restrict_before_resolve(layers: &mut [Layer], restrictions: &mut Vec<String>) -> Result<(), ConfigError> {
    // A registry name means one place in every layer.
    for i in 0..layers.len() {
        for j in i + 1..layers.len() {
            let (high, low) = (&layers[i], &layers[j]);
            for (name, there) in &low.config.registries {
                if let Some(here) = high.config.registries.get(name).filter(|r| !same_registry(r, there)) {
                    return Err(error(
                        &low.config.source,
                        Problem::at(format!("registries.{name}"), format!("{} says {}, {} says {}; a lower layer cannot redefine a registry: rename it here", named(high.kind, &high.config.source), show(here), named(low.kind, &low.config.source), show(there))),
                    ));
                }
            }
        }
    }
    let Some(managed) = layers.iter().find(|l| l.kind == LayerKind::Managed).map(|l| l.config.clone()) else { return Ok(()) };
    let policy = &managed.policy;
    for layer in layers.iter_mut() {
        layer.config.trust.revoke_other_keys = policy.revoke_other_keys;
    }
    let allowed: Option<Vec<Registry>> = match &policy.allowed_registries {
        None => None,
        Some(list) => Some(
            list.iter()
                .map(|entry| match managed.registries.get(entry) {
                    Some(r) => Ok(r.clone()),
                    None => Registry::from_location(entry).map_err(|e| error(&managed.source, Problem::at("policy.allowed_registries", format!("{entry:?} is neither a registry of this file nor a location: {e}")))),
                })
                .collect::<Result<_, _>>()?,
        ),
    };
    let managed_keys: Vec<crate::TrustKey> = managed.trust.keys.iter().map(|k| crate::TrustKey { at: format!("{} {}", managed.source.display(), k.at), ..k.clone() }).collect();
    for layer in layers.iter_mut().filter(|l| l.kind != LayerKind::Managed) {
        let (kind, source) = (layer.kind, layer.config.source.clone());
        let c = &mut layer.config;
        if let Some(allowed) = &allowed {
            c.bundles.retain(|b| {
                let registry = &c.registries[&b.reference.registry];
                let ok = allowed.iter().any(|a| same_registry(a, registry));
                if !ok {
                    restrictions.push(format!(
                        "{kind} {}: {} ({}) removed: its registry {} is not in policy.allowed_registries of {}",
                        source.display(),
                        b.at,
                        b.reference,
                        show(registry),
                        managed.source.display()
                    ));
                }
                ok
            });
        }
        if policy.managed_keys_only {
            for k in c.trust.keys.drain(..) {
                restrictions.push(format!("{kind} {}: {} ({}) not trusted: {} sets policy.managed_keys_only", source.display(), k.at, k.name.as_deref().unwrap_or("unnamed key"), managed.source.display()));
            }
        }
        let own = std::mem::take(&mut c.trust.keys);
        c.trust.keys = managed_keys.iter().cloned().chain(own).collect();
        if managed.trust_written {
            c.trust.rules.require_signed |= managed.trust.rules.require_signed;
            c.trust.rules.min_signers = c.trust.rules.min_signers.max(managed.trust.rules.min_signers);
        }
    }
    Ok(())
}

/// Whether two registries are the same place (directories compared as resolved paths).
pub(super) fn same_registry(a: &Registry, b: &Registry) -> bool {
    match (a, b) {
        (Registry::Dir(x), Registry::Dir(y)) => x == y || std::fs::canonicalize(x).is_ok_and(|x| std::fs::canonicalize(y).is_ok_and(|y| x == y)),
        _ => a == b,
    }
}

pub(super) fn show(r: &Registry) -> String {
    match r {
        Registry::Dir(d) => d.display().to_string(),
        Registry::Oci(l) => format!("oci://{}{}{}", l.registry, if l.prefix.is_empty() { "" } else { "/" }, l.prefix),
    }
}
