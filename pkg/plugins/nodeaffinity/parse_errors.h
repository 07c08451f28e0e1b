// Parse errors of node selector terms, worded as Kubernetes'
// component-helpers nodeaffinity reports them. api::CompiledNodeSelector and
// api::CompiledPreferredTerms match a broken term as "no match" and keep the
// error to themselves; kube-scheduler turns the same errors into a failed
// plugin construction (addedAffinity) or an Error status (PreScore).
#pragma once

#include <string>
#include <vector>

#include "pkg/api/selector.h"

namespace ksched::plugins::nodeaffinity {

// "nodeSelectorTerms[i].<error>" for each non-empty term that does not parse
// (nodeaffinity.NewNodeSelector).
std::vector<std::string> NodeSelectorErrors(const api::NodeSelector& selector);

// "[i].<error>" for each weighted, non-empty term that does not parse
// (nodeaffinity.NewPreferredSchedulingTerms).
std::vector<std::string> PreferredTermsErrors(
    const std::vector<api::PreferredSchedulingTerm>& terms);

// The text of utilerrors.NewAggregate(errs).Error(): one error as is,
// several deduplicated, comma separated and bracketed.
std::string AggregateMessage(const std::vector<std::string>& errors);

}  // namespace ksched::plugins::nodeaffinity
