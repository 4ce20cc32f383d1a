#!/usr/bin/python3
"""Writes shop_traces.json: traces in the shape of Online Boutique's, for the worked example of
docs/import.md.

Nobody here has traces of the real demo, so these are written by drsim itself: the hand-written model of the
shop (scenarios/online_boutique_zone_loss.yaml, without its zone loss) runs for two minutes with 1% of its
requests traced (spec.traces), and its spans are renamed to what the demo's own instrumentation calls them: the
Deployments' names for the services (cart -> cartservice, ...), the load generator for the shoppers, the gRPC
method names for the operations (hipstershop.CartService/GetCart) and the HTTP routes for the frontend's.
`drsim import traces` of this file against the shop imported from examples/online_boutique/kubernetes then gives
back the hand model's call graph and service times (tests/drills/online_boutique_import_test.cc).

    /usr/bin/python3 examples/online_boutique/traces/generate.py build/cli/drsim
"""

import json
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]

SERVICES = {
    "shoppers": "loadgenerator",
    "frontend": "frontend",
    "checkout": "checkoutservice",
    "productcatalog": "productcatalogservice",
    "currency": "currencyservice",
    "cart": "cartservice",
    "redis-cart": "redis-cart",
    "recommendation": "recommendationservice",
    "shipping": "shippingservice",
    "payment": "paymentservice",
    "email": "emailservice",
    "ad": "adservice",
}
GRPC = {
    "checkout": "CheckoutService",
    "productcatalog": "ProductCatalogService",
    "currency": "CurrencyService",
    "cart": "CartService",
    "recommendation": "RecommendationService",
    "shipping": "ShippingService",
    "payment": "PaymentService",
    "email": "EmailService",
    "ad": "AdService",
}
ROUTES = {
    "home": "GET /",
    "product": "GET /product/{id}",
    "setCurrency": "POST /setCurrency",
    "addToCart": "POST /cart",
    "viewCart": "GET /cart",
    "placeOrder": "POST /cart/checkout",
}


def span_name(service: str, operation: str) -> str:
    if service == "frontend":
        return ROUTES[operation]
    if service in GRPC:
        return f"hipstershop.{GRPC[service]}/{operation[0].upper()}{operation[1:]}"
    return {"default": "HGETALL"}.get(operation, operation) if service == "redis-cart" else operation


def main() -> None:
    drsim = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build/cli/drsim")
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [drsim, "run", str(ROOT / "scenarios/online_boutique_zone_loss.yaml"), "--until", "2m", "--quiet",
             "--set", "spec.timeline=[]", "--set", "spec.traces={sampling: 1%}", "--out", out],
            check=True,
        )
        doc = json.loads((pathlib.Path(out) / "traces.json").read_text())
    # Which service serves each span: a CLIENT span is named after the operation of the SERVER span under it.
    service_of = {}
    for rs in doc["resourceSpans"]:
        service = rs["resource"]["attributes"][0]["value"]["stringValue"]
        for ss in rs["scopeSpans"]:
            for span in ss["spans"]:
                service_of[(span["traceId"], span["spanId"])] = (service, span)
    callee = {}
    for (trace, _), (service, span) in service_of.items():
        if span["kind"] == 2 and "parentSpanId" in span:
            callee[(trace, span["parentSpanId"])] = service
    for rs in doc["resourceSpans"]:
        attribute = rs["resource"]["attributes"][0]["value"]
        service = attribute["stringValue"]
        attribute["stringValue"] = SERVICES[service]
        for ss in rs["scopeSpans"]:
            ss["scope"] = {"name": "opentelemetry"}
            for span in ss["spans"]:
                if span["kind"] == 2:
                    span["name"] = span_name(service, span["name"])
                elif (span["traceId"], span["spanId"]) in callee:
                    span["name"] = span_name(callee[(span["traceId"], span["spanId"])], span["name"])
                elif service == "shoppers":
                    span["name"] = ROUTES[span["name"]]
    # A span a line, so that the importer's positions (file:line:column) point at one.
    compact = {"separators": (",", ":")}
    with open(HERE / "shop_traces.json", "w", encoding="utf-8") as f:
        f.write('{"resourceSpans":[\n')
        for i, rs in enumerate(doc["resourceSpans"]):
            f.write('{"resource":' + json.dumps(rs["resource"], **compact) + ',"scopeSpans":[')
            for j, ss in enumerate(rs["scopeSpans"]):
                f.write('{"scope":' + json.dumps(ss["scope"], **compact) + ',"spans":[\n')
                f.write(",\n".join(json.dumps(span, **compact) for span in ss["spans"]))
                f.write("]}" + ("," if j + 1 < len(rs["scopeSpans"]) else ""))
            f.write("]}" + (",\n" if i + 1 < len(doc["resourceSpans"]) else "\n"))
        f.write("]}\n")


if __name__ == "__main__":
    main()
