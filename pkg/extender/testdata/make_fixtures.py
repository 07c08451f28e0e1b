#!/usr/bin/env python3
"""Builds the extender request fixtures in this directory.

Each is a request body as a stock kube-scheduler sends it: the Go structs of
k8s.io/kube-scheduler/extender/v1 marshalled by encoding/json (field names
as keys, in declaration order, nil pointers as null), with the Pod and Nodes
taken from objects a real kube-apiserver v1.32 returned
(../shared/apiserver/pod_after_binding.json, nodes_list.json) as
kube-scheduler's informers hold them: no kind/apiVersion, managedFields
stripped, and the pod not bound yet.

  python3 pkg/extender/testdata/make_fixtures.py  (from the project root)
"""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "..", "..", "shared", "apiserver")


def informer_object(obj):
    obj = copy.deepcopy(obj)
    obj.pop("kind", None)
    obj.pop("apiVersion", None)
    obj["metadata"].pop("managedFields", None)
    return obj


def load(name):
    with open(os.path.join(SHARED, name)) as f:
        return json.load(f)


pod = informer_object(load("pod_after_binding.json"))
pod["spec"].pop("nodeName", None)
pod["status"] = {"phase": "Pending", "qosClass": "Burstable"}

base_node = informer_object(load("nodes_list.json")["items"][0])


def node(name, cpu, taints=None):
    n = copy.deepcopy(base_node)
    n["metadata"]["name"] = name
    n["metadata"]["uid"] = "00000000-0000-4000-8000-00000000000" + name[-1]
    n["metadata"]["labels"]["kubernetes.io/hostname"] = name
    n["status"]["capacity"]["cpu"] = cpu
    n["status"]["allocatable"]["cpu"] = cpu
    if taints:
        n["spec"]["taints"] = taints
    return n


# node-1 fits; node-2 is too small for the pod's 500m; node-3 has a taint
# the pod does not tolerate.
nodes = [
    node("node-1", "4"),
    node("node-2", "250m"),
    node("node-3", "4", [{"key": "dedicated", "value": "gpu",
                          "effect": "NoSchedule"}]),
]
names = [n["metadata"]["name"] for n in nodes]

victim = copy.deepcopy(pod)
victim["metadata"]["name"] = "victim"
victim["metadata"]["uid"] = "7e1c5b0e-7d43-4c56-a3a1-0c7d1d6e0001"
victim["spec"]["nodeName"] = "node-1"

fixtures = {
    # ExtenderArgs{Pod, Nodes, NodeNames}
    "filter_args_nodes.json": {
        "Pod": pod, "Nodes": {"metadata": {}, "items": nodes},
        "NodeNames": None},
    "filter_args_node_names.json": {
        "Pod": pod, "Nodes": None, "NodeNames": names},
    # ExtenderBindingArgs{PodName, PodNamespace, PodUID, Node}
    "bind_args.json": {
        "PodName": pod["metadata"]["name"],
        "PodNamespace": pod["metadata"]["namespace"],
        "PodUID": pod["metadata"]["uid"], "Node": "node-1"},
    # ExtenderPreemptionArgs{Pod, NodeNameToVictims, NodeNameToMetaVictims}
    "preempt_args_meta.json": {
        "Pod": pod, "NodeNameToVictims": None,
        "NodeNameToMetaVictims": {
            "node-1": {"Pods": [{"UID": victim["metadata"]["uid"]}],
                       "NumPDBViolations": 0},
            "node-2": {"Pods": [], "NumPDBViolations": 1}}},
    "preempt_args_full.json": {
        "Pod": pod,
        "NodeNameToVictims": {
            "node-1": {"Pods": [victim], "NumPDBViolations": 0}},
        "NodeNameToMetaVictims": None},
}

for name, body in fixtures.items():
    with open(os.path.join(HERE, name), "w") as f:
        # encoding/json writes compact JSON with no spaces.
        json.dump(body, f, separators=(",", ":"))
        f.write("\n")
