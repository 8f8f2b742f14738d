# kbench-dagster canary 51d0c2fe-183c-4785-8546-615528fa1247
from dataclasses import dataclass
from decimal import Decimal


@dataclass
class OrderItem:
    sku: str
    quantity: int
    unit_price: Decimal

    @property
    def total(self):
        return self.unit_price * self.quantity


def order_total(items):
    return sum((item.total for item in items), Decimal("0"))
